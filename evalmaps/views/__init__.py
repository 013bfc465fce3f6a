"""URL state and payloads (layer 5): what a page's query string means, and the JSON and CSV the
API answers. No Dash: the pages and the routes read these."""
