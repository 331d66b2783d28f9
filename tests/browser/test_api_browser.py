"""The API's interactive page in headless Chromium: drawn from the site's own files under
its content security policy, it lists every operation of the description."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]


def test_the_interactive_page_lists_every_operation(page, live_server):
    refused = []
    page.on("console", lambda message: refused.append(message.text)
            if message.type == "error" else None)
    page.goto(f"{live_server.url}/api/v1/docs")
    operations = page.locator(".opblock-summary-path")
    operations.first.wait_for()
    paths = page.evaluate("fetch('/api/v1/openapi.json').then(r => r.json())")["paths"]
    count = sum(len(methods) for methods in paths.values())
    assert operations.count() == count == 22
    assert "/api/v1/surveys/{survey_id}/results" in operations.all_inner_texts()
    assert refused == []
