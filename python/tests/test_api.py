"""The SDK against the local gateway on DynamoDB Local with the replay upstream (tests/stack.py):
every operation through its method, pages and items, the API's errors, the account and monitors
APIs, and webhooks signed by the `standardwebhooks` package."""
from __future__ import annotations

import json
import time
import threading
import typing
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import social_data
from social_data import Client, to_records, verify_webhook
from social_data.webhooks import WebhookVerificationError

from .stack import environment

ENV: typing.Dict[str, str] = {}
CALLS: typing.Dict[str, typing.Dict[str, str]] = {}


def setUpModule() -> None:
    ENV.update(environment())
    CALLS.update(json.loads(ENV["SOCIAL_DATA_TEST_CALLS"]))


def client(**kw: typing.Any) -> Client:
    # A 503 of the source is not waited for here (its Retry-After is 30 s or more).
    return Client(api_key=kw.pop("api_key", ENV["SOCIAL_DATA_API_KEY"]), base_url=ENV["SOCIAL_DATA_API_URL"], max_retry_wait=kw.pop("max_retry_wait", 2), **kw)


def method(c: Client, op_id: str) -> typing.Any:
    namespace, name = social_data.OPERATIONS[op_id]
    return getattr(getattr(c, namespace), name)


def data_type(op: typing.Any) -> typing.Any:
    """The TypedDict of an operation's `data` (the class's _Operation[<type>] base)."""
    return typing.get_args(type(op).__orig_bases__[0])[0]


class EveryOperation(unittest.TestCase):
    def test_every_operation_once_through_its_method(self) -> None:
        c = client()
        self.assertEqual(set(social_data.OPERATIONS), set(CALLS))
        answered = {}
        for op_id in social_data.OPERATIONS:
            op = method(c, op_id)
            with self.subTest(op_id):
                try:
                    answer = op(**CALLS[op_id])
                except social_data.PlatformUnavailable as e:
                    # citygame answers 503 without a configured source (the stack names none).
                    self.assertEqual(op_id, "citygame-daily", str(e))
                    self.assertEqual((e.status, e.code), (503, "PLATFORM_UNAVAILABLE"))
                    self.assertGreater(e.retry_after or 0, 0)
                    self.assertTrue(e.request_id)
                    answered[op_id] = 503
                    continue
                self.assertIsInstance(answer.data, dict)
                self.assertIn("fetchedAt", answer.data)
                # Every key the TypedDict requires is in the answer.
                required = data_type(op).__required_keys__
                self.assertTrue(required, op_id)
                self.assertEqual(sorted(k for k in required if k not in answer.data), [])
                self.assertEqual((answer.meta.credits_charged, answer.meta.cached), (1, False))
                self.assertTrue(answer.meta.request_id)
                answered[op_id] = 200
        self.assertEqual(len(answered), len(social_data.OPERATIONS))

    def test_a_cache_hit_is_free_and_says_when(self) -> None:
        c = client()
        first = c.microblog_b.profile(**CALLS["microblog-b-profile"])
        again = c.microblog_b.profile(**CALLS["microblog-b-profile"], cache_max_age="1d")
        self.assertEqual((again.meta.cached, again.meta.credits_charged), (True, 0))
        self.assertTrue(again.meta.cached_at)
        self.assertEqual(again.meta.credits_remaining, first.meta.credits_remaining)


class PagesAndItems(unittest.TestCase):
    def test_items_of_an_operation_without_a_cursor_are_its_one_answers_list(self) -> None:
        c = client()
        answer = c.microblog_b.user_notes(**CALLS["microblog-b-user-notes"])
        notes = list(c.microblog_b.user_notes.items(**CALLS["microblog-b-user-notes"], cache_max_age="1d"))
        self.assertGreater(len(notes), 0)
        self.assertEqual([n["id"] for n in notes], list(dict.fromkeys(n["id"] for n in answer.data["notes"])))
        self.assertFalse(hasattr(c.microblog_b.user_notes, "pages"))

    def test_items_of_overlapping_pages_each_once(self) -> None:
        c = client()
        url = CALLS["shortvideo-video-comments"]["url"]
        pages = list(c.shortvideo.video_comments.pages(url=url))
        ids_per_page = [[item["id"] for item in page.data["comments"]] for page in pages]
        every = [i for ids in ids_per_page for i in ids]
        self.assertGreater(len(pages), 1)
        # The source re-ranked: a comment of page 1 is on page 2 too.
        self.assertEqual(len(every), len(set(every)) + 1)
        items = c.shortvideo.video_comments.items(url=url, cache_max_age="1d")
        ids = [item["id"] for item in items]
        self.assertEqual(ids, list(dict.fromkeys(every)))
        limited = [item["id"] for item in c.shortvideo.video_comments.items(url=url, cache_max_age="1d", max_items=3)]
        self.assertEqual(limited, ids[:3])

    def test_every_page_of_a_hashtag_and_records_with_the_command_lines_columns(self) -> None:
        c = client()
        items = c.shortvideo.search_hashtag.items(**CALLS["shortvideo-search-hashtag"])
        records = to_records(items)
        ids = [r["id"] for r in records]
        self.assertGreater(len(ids), 3)
        self.assertEqual(len(ids), len(set(ids)))
        self.assertEqual(list(records[0].keys()), [name for name, _, _ in items.columns])
        self.assertIn("author.handle", records[0])

    def test_a_cursor_the_api_refuses_is_bad_request(self) -> None:
        with self.assertRaises(social_data.BadRequest) as caught:
            client().shortvideo.search_hashtag(**CALLS["shortvideo-search-hashtag"], cursor="tampered")
        self.assertEqual(caught.exception.status, 400)
        self.assertTrue(caught.exception.request_id)


class Errors(unittest.TestCase):
    def test_each_error_status_of_the_api_raises_its_exception(self) -> None:
        c = client()
        with self.assertRaises(social_data.NotFound) as nf:
            c.microblog_a.user_posts(handle="nobody-here.bsky.social")
        self.assertEqual((nf.exception.status, nf.exception.code), (404, "NOT_FOUND"))
        with self.assertRaises(social_data.ValidationError) as bad:
            c.livestream.clip(url="https://example.com/somechannel/clips/clip_01JQ7ZK3M8W4TYV5R2N6P9XBCD")
        self.assertEqual(bad.exception.status, 422)
        self.assertEqual([d["path"] for d in bad.exception.details], ["url"])
        with self.assertRaises(social_data.ValidationError) as neither:
            c.microblog_a.user_posts()
        self.assertTrue(any("handle" in d["path"] for d in neither.exception.details), neither.exception.details)
        with self.assertRaises(social_data.Unauthorized) as unauthorized:
            client(api_key="sd_not_a_key_at_all_000000000").microblog_b.profile(handle="nasa")
        self.assertEqual(unauthorized.exception.status, 401)
        with self.assertRaises(social_data.InsufficientCredits) as poor:
            client(api_key=ENV["SOCIAL_DATA_TEST_POOR_KEY"]).microblog_b.profile(**CALLS["microblog-b-profile"])
        self.assertEqual(poor.exception.status, 402)
        for e in (nf, bad, unauthorized, poor):
            self.assertTrue(e.exception.request_id)
            self.assertTrue(e.exception.message)


class Receiver:
    """A webhook receiver on http.server: it keeps each POST's headers and raw body and answers 204."""

    def __init__(self) -> None:
        self.received: typing.List[typing.Tuple[typing.Dict[str, str], bytes]] = []
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                received.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: typing.Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class AccountAndMonitors(unittest.TestCase):
    def test_account_reads(self) -> None:
        c = client()
        credits = c.account.credits().data
        self.assertIsInstance(credits, dict)
        self.assertIsNone(c.account.credits().meta)
        usage = c.account.usage(days=7).data
        self.assertIsInstance(usage, dict)
        c.microblog_b.profile(**CALLS["microblog-b-profile"])
        c.microblog_b.profile(**CALLS["microblog-b-profile"], cache_max_age="1d")
        history = c.account.requests(limit=1).data
        self.assertEqual(len(history["requests"]), 1)
        self.assertTrue(history["hasMore"])
        pages = []
        for page in c.account.requests_pages(limit=1):
            pages.append(page.data["requests"][0])
            if len(pages) == 2:
                break
        self.assertEqual(len(pages), 2)
        self.assertNotEqual(pages[0], pages[1])

    def test_monitor_lifecycle_and_its_test_webhook_verified(self) -> None:
        c = client()
        receiver = Receiver()
        self.addCleanup(receiver.close)
        created = c.monitors.create(operation="microblog-a-user-posts", params=CALLS["microblog-a-user-posts"], interval_seconds=3600, webhook_url=receiver.url).data["monitor"]
        self.assertTrue(created["secret"].startswith("whsec_"))
        mid = created["id"]
        self.assertIn(mid, [m["id"] for m in c.monitors.list().data["monitors"]])
        self.assertEqual(c.monitors.get(mid).data["monitor"]["intervalSeconds"], 3600)
        self.assertEqual(c.monitors.update(mid, status="paused").data["monitor"]["status"], "paused")
        rotated = c.monitors.rotate_secret(mid).data["monitor"]["secret"]
        self.assertNotEqual(rotated, created["secret"])
        delivery = c.monitors.test(mid).data["delivery"]
        self.assertEqual(delivery["type"], "monitor.test")
        # Queued (202): the scheduler sends it within moments.
        deadline = time.monotonic() + 30
        while not receiver.received and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(len(receiver.received), 1, receiver.received)
        headers, body = receiver.received[0]
        self.assertEqual(headers["webhook-id"], delivery["eventId"])
        # For 24 h after a rotation every delivery carries both signatures: the new secret verifies, the old one too.
        event = verify_webhook(body, headers, rotated)
        self.assertEqual(event["type"], "monitor.test")
        self.assertEqual(verify_webhook(body, headers, created["secret"])["type"], "monitor.test")
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(body, headers, "whsec_" + "A" * 32)
        self.assertIn(delivery["eventId"], [d["eventId"] for d in c.monitors.deliveries(mid).data["deliveries"]])
        # One test or redelivery per monitor every 5 s: the client waits out the 429's Retry-After.
        patient = client(max_retry_wait=6)
        self.assertEqual(patient.monitors.redeliver(mid, delivery["eventId"]).data["delivery"]["eventId"], delivery["eventId"])
        with self.assertRaises(social_data.NotFound):
            c.monitors.redeliver(mid, "evt_unknown")
        c.monitors.delete(mid)
        with self.assertRaises(social_data.NotFound):
            c.monitors.get(mid)
        with self.assertRaises(social_data.ValidationError) as bad:
            c.monitors.create(operation="microblog-a-user-posts", params=CALLS["microblog-a-user-posts"], interval_seconds=1, webhook_url="http://127.0.0.1:9/hook")
        self.assertTrue(bad.exception.details)


class Webhooks(unittest.TestCase):
    def test_webhooks_signed_by_the_reference_package(self) -> None:
        signed = json.loads(ENV["SOCIAL_DATA_TEST_WEBHOOKS"])
        self.assertTrue(any(case["valid"] for case in signed["cases"]))
        self.assertTrue(any(not case["valid"] for case in signed["cases"]))
        for case in signed["cases"]:
            with self.subTest(case["name"]):
                body = case["body"].encode("utf-8")
                if case["valid"]:
                    self.assertEqual(verify_webhook(body, case["headers"], signed["secret"]), json.loads(case["body"]))
                else:
                    with self.assertRaises(WebhookVerificationError):
                        verify_webhook(body, case["headers"], signed["secret"])


if __name__ == "__main__":
    unittest.main()
