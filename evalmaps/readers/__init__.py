"""Reading (layer 2): what a file's bytes are, and a reader per format."""
