"""The persistent skill library: metadata, artifacts and a FAISS index over skill descriptions."""
