"""URL state, views and payloads (layer 5): what a page's query string means (``state``), the
answer to it (``models``: one frozen view per page URL, with its JSON) and the API's JSON and CSV
(``payloads``). No Dash: the pages and the routes read these."""

from evalmaps.views.models import BrowseView, CompareView, ItemsView, TrendsView
from evalmaps.views.rank import RankView

__all__ = ["BrowseView", "CompareView", "ItemsView", "RankView", "TrendsView"]
