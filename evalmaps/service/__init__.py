"""The service (layer 6): settings, the upload store and uploads, the production server and its
gunicorn worker, and the command line. It names the web app (``app:server``), never imports it."""
