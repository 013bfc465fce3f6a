"""Builders: domain objects in, Plotly figures and Dash components out. No callbacks here.

``dash_internals`` is the one module that uses Dash's (and Plotly's) private names."""
