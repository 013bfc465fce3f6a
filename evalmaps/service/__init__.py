"""The service (layer 6): settings, the upload store and uploads, the production server and the
command line."""
