"""The browser client's pages: each route answers with one HTML file of ``web/static``."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse, Response

from slapjack.web import PAGES, STATIC_DIR

from .context import Ctx, error

__all__ = ["PAGES", "STATIC_DIR", "router"]

router = APIRouter(include_in_schema=False)


def _page_route(path: str, file: str) -> None:
    async def page(ctx: Ctx) -> Response:
        target = ctx.static / file
        if not target.is_file():
            return error(404, "no_page", f"the client page {file} is missing")
        return FileResponse(target, media_type="text/html")

    page.__name__ = f"page_{file.removesuffix('.html')}"
    router.add_api_route(path, page, methods=["GET"], response_model=None)


for _path, _file in PAGES.items():
    _page_route(_path, _file)
