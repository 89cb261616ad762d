import service_status
from conftest import text


def test_a_service_that_is_up(call_tool) -> None:
    outcome = call_tool(service_status.main, "service_status", {"service": "web"})
    assert not outcome.is_error
    assert text(outcome) == "web is up (version 2.4.1, 12 ms)"


def test_a_service_that_is_down_is_a_transient_error(call_tool) -> None:
    outcome = call_tool(service_status.main, "service_status", {"service": "db"})
    assert outcome.is_error and outcome.transient
    assert outcome.trace == ["connection refused", "checked db"]
    assert text(outcome) == "db is down since 03:12 UTC"


def test_an_unknown_service_is_a_permanent_error(call_tool) -> None:
    outcome = call_tool(service_status.main, "service_status", {"service": "cache"})
    assert outcome.is_error and not outcome.transient
    assert text(outcome) == "unknown service 'cache' (known: db, queue, web)"


def test_describe_is_a_pure_helper() -> None:
    tool = service_status.ServiceStatus({"x": {"up": True, "version": "1", "latency_ms": 3}})
    assert tool.describe("x", tool.registry["x"]) == "x is up (version 1, 3 ms)"
