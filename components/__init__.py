"""Builders: domain objects in, Plotly figures and Dash components out. No callbacks here."""
