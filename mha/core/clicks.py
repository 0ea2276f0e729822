"""What a click on a Plotly heatmap selected: the one reader of ``st.plotly_chart`` selection events. Pure Python."""
from __future__ import annotations


def clicked_pair(event) -> tuple[int, int] | None:
    """The two numbers a click on a clickable heatmap carries as the first point's customdata ((query, key) on a
    head's weights, (head a, head b) on a similarity map), from a ``st.plotly_chart`` selection event; None when
    nothing usable was clicked. The browser sends a row of a typed (int32) array back as ``{"0": i, "1": j}``, a
    plain list as ``[i, j]``: both are read; anything else (no point, no customdata, garbage) gives None."""
    data = _clicked_customdata(event)
    try:
        i, j = (int(v) for v in data[:2])
    except (IndexError, TypeError, ValueError):
        return None
    return i, j


def _clicked_customdata(event) -> list | None:
    """The first selected point's customdata as a list (a typed-array row comes back as ``{"0": a, "1": b}``, read
    in order), or None: the one reader of Plotly selection events from ``st.plotly_chart``."""
    try:
        points = (event or {}).get("selection", {}).get("points", [])
        data = points[0].get("customdata") if points else None
        if isinstance(data, dict):
            data = [data[k] for k in sorted(data, key=int)]
    except (AttributeError, KeyError, TypeError, ValueError):
        return None
    if data is None:
        return None
    return list(data) if isinstance(data, (list, tuple)) else [data]
