"""Loading and validation (layer 3): a data folder's catalog.json and tables -> validated
:class:`~evalmaps.core.figure.Figure` objects, the content-keyed cache, manifests, folders of
results read through :mod:`evalmaps.readers`, and where the run-time files are."""
