"""The data path as it was before it was vectorised (evalmaps' loading, importers and model at
37c2459, imports pointed here), kept verbatim as the reference the fast path must agree with:
same results, same error messages, rows and columns. Used by tests only."""
