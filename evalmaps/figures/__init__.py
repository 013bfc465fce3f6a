"""The figures, as plain Plotly dicts, built once for every page and for the static bundle:
the heatmap (:mod:`.heatmap`), trends' line charts (:mod:`.trends`), Compare's maps
(:mod:`.compare`), the hover text of a cell (:mod:`.hover`) and the shared look (:mod:`.theme`).
Pure: no Dash, Plotly or Flask (the Dash pages wrap these figures in ``components``)."""
