"""The data path as it was before it was vectorised (evalmaps' loading, importers and model at
37c2459, imports pointed here), kept as the reference the fast path must agree with: same
results, same error messages, rows and columns. It has been edited since, only where the
product's behaviour changed on purpose (see ``git log -- tests/reference``) and where modules it
imports moved; it is not linted. Used by tests only."""
