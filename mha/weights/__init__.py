"""Weights for a view: the view spec -> View, batches, trained heads, pretrained layers, uploads and export.
May import ``mha.core`` and ``mha.strings``; never Streamlit, lessons, charts or the app."""
