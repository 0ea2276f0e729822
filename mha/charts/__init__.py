"""Charts: the chart style and words, Plotly builders, the canvas components' payloads, the standalone HTML file.
May import ``mha.lessons``, ``mha.weights``, ``mha.core`` and ``mha.strings``; never Streamlit or the app."""
