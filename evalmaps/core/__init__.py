"""The data model (layer 1): figures, panels, metrics and dimensions, the errors every layer
raises, the text of numbers, and the names a dimension may not take. Imports nothing else of
evalmaps."""
