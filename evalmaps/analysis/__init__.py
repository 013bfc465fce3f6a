"""Analyses (layer 4): slicing a figure into panels, trends, comparing two panels, standard
errors and exports. Pure functions of loaded figures."""
