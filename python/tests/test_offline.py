"""The client's own rules against a scripted stand-in (tests/fake.py): each error code's exception,
the retry of 429 and 503 after Retry-After, paging's stops, and records."""
from __future__ import annotations

import time
import unittest
import urllib.parse

import social_data
from social_data import Client, RateLimited, to_records
from social_data.webhooks import WebhookVerificationError, sign, verify_webhook

from .fake import FakeApi, error, ok


class WithFake(unittest.TestCase):
    def setUp(self) -> None:
        self.fake = FakeApi()
        self.client = Client(api_key="k", base_url=self.fake.url, max_retry_wait=5)

    def tearDown(self) -> None:
        self.fake.close()


class Errors(WithFake):
    def test_every_error_code_raises_its_exception_with_the_answer(self) -> None:
        statuses = {}
        for code, cls in social_data.ERRORS.items():
            details = [{"path": "handle", "message": "Required"}] if code == "VALIDATION_ERROR" else None
            self.fake.reply(cls.status, error(code, f"about {code}", details), {"retry-after": "99"} if cls.status in (429, 503) else {})
            with self.assertRaises(cls) as caught:
                self.client.microblog_b.profile(handle="nasa")
            e = caught.exception
            self.assertIsInstance(e, social_data.SocialDataError)
            self.assertEqual((e.code, e.status, e.message, e.request_id), (code, cls.status, f"about {code}", f"req-{code}"))
            self.assertEqual(e.details, details or [])
            if cls.status in (429, 503):
                self.assertEqual(e.retry_after, 99.0)  # longer than max_retry_wait: raised at once
            statuses[code] = cls.status
        self.assertEqual(len(self.fake.requests), len(social_data.ERRORS))
        self.assertEqual(set(statuses.values()), {400, 401, 402, 404, 422, 429, 503})

    def test_an_answer_without_an_error_body_is_still_an_error(self) -> None:
        self.fake.reply(502, "Bad gateway")
        with self.assertRaises(social_data.SocialDataError) as caught:
            self.client.microblog_b.profile(handle="nasa")
        self.assertEqual((caught.exception.status, caught.exception.code), (502, "HTTP_502"))

    def test_an_unreachable_api_is_connection_failed(self) -> None:
        self.fake.close()
        with self.assertRaises(social_data.ConnectionFailed):
            Client(api_key="k", base_url=self.fake.url, timeout=2).microblog_b.profile(handle="nasa")
        self.fake = FakeApi()


class Retries(WithFake):
    def test_429_then_200_is_retried_once_after_retry_after(self) -> None:
        self.fake.reply(429, error("RATE_LIMITED"), {"retry-after": "1"}).reply(200, ok({"profile": {"screenName": "nasa"}}))
        started = time.monotonic()
        answer = self.client.microblog_b.profile(handle="nasa")
        waited = time.monotonic() - started
        self.assertEqual(answer.data["profile"]["screenName"], "nasa")
        self.assertEqual(len(self.fake.requests), 2)
        self.assertGreaterEqual(waited, 1.0)

    def test_retries_stop_at_max_retries(self) -> None:
        client = Client(api_key="k", base_url=self.fake.url, max_retries=1)
        for _ in range(3):
            self.fake.reply(503, error("PLATFORM_UNAVAILABLE"), {"retry-after": "0"})
        with self.assertRaises(social_data.PlatformUnavailable):
            client.microblog_b.profile(handle="nasa")
        self.assertEqual(len(self.fake.requests), 2)

    def test_no_retry_when_turned_off_or_when_retry_after_is_longer_than_the_bound(self) -> None:
        client = Client(api_key="k", base_url=self.fake.url, max_retries=0)
        self.fake.reply(429, error("RATE_LIMITED"), {"retry-after": "0"})
        with self.assertRaises(RateLimited):
            client.microblog_b.profile(handle="nasa")
        self.fake.reply(429, error("RATE_LIMITED"), {"retry-after": "6"})
        with self.assertRaises(RateLimited) as caught:
            self.client.microblog_b.profile(handle="nasa")
        self.assertEqual(caught.exception.retry_after, 6.0)
        self.assertEqual(len(self.fake.requests), 2)

    def test_a_post_is_not_retried_on_503(self) -> None:
        self.fake.reply(503, error("SERVICE_UNAVAILABLE"), {"retry-after": "0"})
        with self.assertRaises(social_data.ServiceUnavailable):
            self.client.monitors.test("mon_1")
        self.assertEqual(len(self.fake.requests), 1)


class Requests(WithFake):
    def test_keyword_arguments_are_sent_by_their_api_names(self) -> None:
        self.fake.reply(200, ok({"posts": []}))
        self.client.microblog_a.user_posts(user_id="did:plc:abcdefghijklmnopqrstuvwx", cache_max_age="1d")
        request = self.fake.requests[0]
        path, _, query = request["path"].partition("?")
        self.assertEqual(path, "/v1/microblog-a/user/posts")
        self.assertEqual(urllib.parse.parse_qs(query), {"userId": ["did:plc:abcdefghijklmnopqrstuvwx"], "cache_max_age": ["1d"]})
        self.assertEqual(request["headers"].get("x-api-key"), "k")

    def test_a_boolean_is_sent_as_true_or_false(self) -> None:
        self.fake.reply(200, ok({"notes": []}))
        self.client.microblog_b.user_notes(handle="nasa", trim=True)
        self.assertIn("trim=true", self.fake.requests[0]["path"])

    def test_monitor_routes_fill_their_path_and_send_json(self) -> None:
        self.fake.reply(200, {"data": {"monitor": {"id": "a/b"}}})
        self.client.monitors.update("a/b", status="paused")
        request = self.fake.requests[0]
        self.assertEqual((request["method"], request["path"], request["body"]), ("PATCH", "/v1/monitors/a%2Fb", '{"status": "paused"}'))

    def test_the_environment_names_the_key_and_the_url(self) -> None:
        import os
        from unittest import mock

        with mock.patch.dict(os.environ, {"SOCIAL_DATA_API_KEY": "from-env", "SOCIAL_DATA_API_URL": self.fake.url + "/"}):
            client = Client()
        self.fake.reply(200, ok({"profile": {}}))
        client.microblog_b.profile(handle="nasa")
        self.assertEqual(self.fake.requests[0]["headers"].get("x-api-key"), "from-env")
        with self.assertRaises(ValueError):
            Client(api_key="k", base_url="http://example.com")  # plain http off this machine


class Paging(WithFake):
    def page(self, ids, cursor, has_more=True):
        return ok({"hashtag": {}, "videos": [{"id": i} for i in ids], "cursor": cursor, "hasMore": has_more})

    def test_items_of_overlapping_pages_once_within_max_items(self) -> None:
        self.fake.reply(200, self.page(["1", "2", "3"], "c1")).reply(200, self.page(["3", "4"], "c2")).reply(200, self.page(["4", "5"], None, False))
        items = self.client.shortvideo.search_hashtag.items(hashtag="x")
        self.assertEqual([i["id"] for i in items], ["1", "2", "3", "4", "5"])
        self.assertEqual([r["path"].count("cursor=") for r in self.fake.requests], [0, 1, 1])
        self.fake.requests.clear()
        self.fake.reply(200, self.page(["1", "2", "3"], "c1")).reply(200, self.page(["4", "5"], "c2"))
        self.assertEqual([i["id"] for i in self.client.shortvideo.search_hashtag.items(hashtag="x", max_items=4)], ["1", "2", "3", "4"])
        self.assertEqual(len(self.fake.requests), 2)

    def test_max_pages_and_a_repeated_cursor_end_the_pages(self) -> None:
        self.fake.reply(200, self.page(["1"], "c1")).reply(200, self.page(["2"], "c2"))
        self.assertEqual(len(list(self.client.shortvideo.search_hashtag.pages(hashtag="x", max_pages=2))), 2)
        self.fake.reply(200, self.page(["1"], "same")).reply(200, self.page(["2"], "same"))
        self.assertEqual(len(list(self.client.shortvideo.search_hashtag.pages(hashtag="x"))), 2)
        self.assertEqual(len(self.fake.requests), 4)

    def test_a_refused_cursor_ends_with_its_exception(self) -> None:
        self.fake.reply(200, self.page(["1"], "c1")).reply(400, error("BAD_REQUEST", "The cursor is invalid or has expired"))
        seen = []
        with self.assertRaises(social_data.BadRequest):
            for page in self.client.shortvideo.search_hashtag.pages(hashtag="x"):
                seen.append(page)
        self.assertEqual(len(seen), 1)
        self.assertEqual(len(self.fake.requests), 2)


class Records(unittest.TestCase):
    def test_dotted_columns_lists_as_json_nulls_as_none(self) -> None:
        rows = to_records([{"id": "1", "author": {"handle": "a", "bio": None}, "tags": ["x", "é"]}, {"id": "2", "author": None, "extra": 1}])
        self.assertEqual(rows[0], {"id": "1", "author.handle": "a", "author.bio": None, "tags": '["x","é"]', "extra": None})
        self.assertEqual(rows[1]["author.handle"], None)
        self.assertEqual(rows[1]["extra"], 1)


try:
    import pandas  # noqa: F401
except ImportError:
    pandas = None


class DataFrame(unittest.TestCase):
    @unittest.skipIf(pandas is None, "pandas is not installed (to_dataframe is optional)")
    def test_to_dataframe_has_the_records_columns(self) -> None:
        frame = social_data.to_dataframe([{"id": "1", "author": {"handle": "a"}}, {"id": "2", "author": {"handle": "b"}}])
        self.assertEqual(list(frame.columns), ["id", "author.handle"])
        self.assertEqual(list(frame["author.handle"]), ["a", "b"])


class Webhooks(unittest.TestCase):
    SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    def test_sign_and_verify_round_trip_and_refusals(self) -> None:
        body = b'{"type":"monitor.test"}'
        now = int(time.time())
        headers = {"Webhook-Id": "msg_1", "Webhook-Timestamp": str(now), "Webhook-Signature": sign(self.SECRET, "msg_1", now, body)}
        self.assertEqual(verify_webhook(body, headers, self.SECRET), {"type": "monitor.test"})
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(body, {**headers, "Webhook-Timestamp": str(now + 400)}, self.SECRET)
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(body, {"Webhook-Id": "msg_1"}, self.SECRET)


if __name__ == "__main__":
    unittest.main()
