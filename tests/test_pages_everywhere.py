"""Every page of the server, as its users meet them (spec §10.2): at 1280 and at 400 px wide
each shows its key facts without sideways scrolling, has no axe-core violation of impact
serious or critical, and writes nothing to the console. The pages are the tour's
(tests/tour.py), which covers every page route — a page added is checked the moment it
exists."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from browser import axe, chromium, errors, screenshot
from tour import WIDTHS, Contest, contest, sign_in

pytest.importorskip("starlette")
pytestmark = pytest.mark.xdist_group("pages_everywhere")


@pytest.fixture(scope="module")
def tour(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Contest]:
    with contest(tmp_path_factory.mktemp("tour") / "contest") as c:
        yield c


def page_routes() -> set[str]:
    """The names of the routes that answer a page: GET, not the API, a download or a file."""
    from starlette.routing import Route

    from moonasm.server.app import AREAS

    return {route.name for area in AREAS for route in area.ROUTES
            if isinstance(route, Route) and "GET" in (route.methods or set())
            and not route.path.startswith(("/api/", "/static/"))
            and "." not in route.path.rsplit("/", 1)[-1]}


def test_the_tour_visits_every_page_route(tour: Contest) -> None:
    assert page_routes() - {stop.route for stop in tour.stops()} == set()


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_reads_at_both_widths_with_nothing_grave_for_axe(tour: Contest,
                                                                    width: int) -> None:
    found: dict[str, Any] = {}
    with chromium(width, 900) as driver:
        for stop in tour.stops():
            sign_in(driver, tour, stop.who, stop.path)
            screenshot(driver, f"tour-{stop.shot}-{width}")
            problems = axe(driver)
            sideways = driver.execute_script(
                "return document.documentElement.scrollWidth - window.innerWidth")
            if sideways > 0:
                problems.append(f"the page scrolls {sideways} px sideways")
            problems += [e["message"] for e in errors(driver)]
            if problems:
                found[stop.shot] = problems
    assert not found, "\n".join(f"{shot}: {p}" for shot, ps in found.items() for p in ps)
