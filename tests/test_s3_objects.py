"""records/objects.py against a real S3 server (SeaweedFS, tests/s3_server.py): the conditional
writes a run on object storage commits with (issue 32), a Parquet part's round trip, the URL's
checks, and that neither the endpoint nor the credentials show in anything the module returns."""
from __future__ import annotations

import base64
import hashlib
import threading
import uuid

import botocore.exceptions
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from s3_server import s3_env, s3_server  # noqa: F401 (fixtures)

from records.objects import Objects, ObjectStoreError, S3Url, client, is_url, parse_url


@pytest.fixture
def objects(s3_env):  # noqa: F811
    """The objects under a prefix of the test's own, in the server's bucket."""
    return Objects(f"s3://{s3_env.bucket}/t-{uuid.uuid4().hex[:12]}/runs")


def status_of(call) -> int:
    """The HTTP status of a request the server refuses (boto3 directly, no layer of ours)."""
    with pytest.raises(botocore.exceptions.ClientError) as refused:
        call()
    return refused.value.response["ResponseMetadata"]["HTTPStatusCode"]


def test_create_only_put_refuses_a_second_create(objects):
    etag = objects.put_new("quick/.lock", b"first")
    assert etag
    assert objects.put_new("quick/.lock", b"second") is None
    assert objects.get("quick/.lock") == (b"first", etag)
    # the server itself answers 412 to If-None-Match: * on a key that is there
    s3 = client()
    key = objects.url.key("quick/.lock")
    assert status_of(lambda: s3.put_object(Bucket=objects.url.bucket, Key=key, Body=b"x", IfNoneMatch="*")) == 412


def test_compare_and_swap_with_the_current_etag_only(objects):
    first = objects.put_new("commits.json", b"v1")
    second = objects.put_if("commits.json", b"v2", first)
    assert second and second != first
    assert objects.put_if("commits.json", b"v3", first) is None  # stale: changed since
    assert objects.get("commits.json") == (b"v2", second)
    assert objects.put_if("nothing-here", b"v1", first) is None  # gone (or never there)
    s3 = client()
    key = objects.url.key("commits.json")
    assert status_of(lambda: s3.put_object(Bucket=objects.url.bucket, Key=key, Body=b"x", IfMatch=first)) == 412
    # a conditional delete, the same way (a lock given back only by its holder)
    assert objects.delete("commits.json", etag=first) is False
    assert objects.etag("commits.json") == second
    assert objects.delete("commits.json", etag=second) is True
    assert objects.etag("commits.json") is None
    assert objects.delete("commits.json") is True  # one not there is no error


def test_one_of_many_simultaneous_conditional_writes_wins(objects, s3_env):  # noqa: F811
    shared = client()  # thread-safe: its pool sends the six requests at once
    clients = [Objects(objects.url, shared) for _ in range(6)]

    def race(write) -> list[int]:
        won, threads = [], [threading.Thread(target=lambda i=i: write(i) and won.append(i)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return won

    created = race(lambda i: clients[i].put_new("part", f"created by {i}".encode()))
    assert len(created) == 1
    data, etag = objects.get("part")
    assert data == f"created by {created[0]}".encode()
    swapped = race(lambda i: clients[i].put_if("part", f"swapped by {i}".encode(), etag))
    assert len(swapped) == 1
    assert objects.get("part")[0] == f"swapped by {swapped[0]}".encode()


def test_a_parquet_part_reads_back_byte_for_byte(objects):
    table = pa.table({"game_id": pa.array(range(500), pa.int64()), "bot": [f"bot-{i % 7}" for i in range(500)],
                      "points": pa.array([i * 0.5 for i in range(500)], pa.float64())})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, write_page_checksum=True)
    data = sink.getvalue().to_pybytes()
    etag = objects.put_new("quick/games/part-000000.parquet", data)
    back, back_etag = objects.get("quick/games/part-000000.parquet")
    assert back == data and back_etag == etag
    assert pq.read_table(pa.BufferReader(back)).equals(table)
    assert objects.list("quick/") == ["quick/games/part-000000.parquet"]


def test_a_changed_body_is_refused_by_its_content_md5(objects):
    """Each PUT sends its Content-MD5 (records/objects.py, CONFIG): the server checks it."""
    wrong = base64.b64encode(hashlib.md5(b"other bytes").digest()).decode()
    s3 = client()
    assert status_of(lambda: s3.put_object(Bucket=objects.url.bucket, Key=objects.url.key("x"), Body=b"bytes",
                                           ContentMD5=wrong)) == 400
    assert objects.etag("x") is None


def test_requests_carry_no_default_checksum_headers(objects):
    """boto3's newer default checksums are off (when_required): a PUT sends Content-MD5 only."""
    sent = []
    s3 = client()
    s3.meta.events.register("before-send.s3.PutObject", lambda request, **_: sent.append(dict(request.headers)))
    Objects(objects.url, s3).put_new("plain", b"bytes")
    headers = {name.lower() for name in sent[0]}
    assert "content-md5" in headers
    assert not {h for h in headers if h.startswith(("x-amz-checksum", "x-amz-sdk-checksum", "x-amz-trailer"))}
    assert "aws-chunked" not in str(sent[0].get("Content-Encoding", ""))


class LostAnswers:
    """An S3 client whose first ``put_object`` or ``delete_object`` is carried out but its answer
    lost (a read timeout), as a network can do to a conditional write."""

    def __init__(self, s3):
        self.s3, self.lost = s3, 0

    def __getattr__(self, name):
        method = getattr(self.s3, name)
        if name not in ("put_object", "delete_object"):
            return method

        def once_lost(**kw):
            result = method(**kw)
            if self.lost == 0:
                self.lost += 1
                raise botocore.exceptions.ReadTimeoutError(endpoint_url="lost")
            return result

        return once_lost


def test_a_conditional_write_whose_answer_was_lost_is_found_to_be_ours(objects):
    lossy = Objects(objects.url, LostAnswers(client()), attempts=3)
    etag = lossy.put_new("lock", b"mine")
    assert etag and objects.get("lock") == (b"mine", etag)
    lossy = Objects(objects.url, LostAnswers(client()), attempts=3)
    new = lossy.put_if("lock", b"mine, later", etag)
    assert new and objects.get("lock") == (b"mine, later", new)
    lossy = Objects(objects.url, LostAnswers(client()), attempts=3)
    assert lossy.delete("lock", etag=new) is True
    # a 412 with no lost answer before it stays a refusal, even for the same bytes
    objects.put_new("other", b"same")
    assert objects.put_new("other", b"same") is None


@pytest.mark.parametrize("text, why", [
    ("", "not an s3:// URL"),
    ("runs/quick", "not an s3:// URL"),
    ("gs://bucket/runs", "not an s3:// URL"),
    ("s3:", "does not start with s3://"),
    ("s3:bucket/runs", "does not start with s3://"),
    ("s3:/bucket/runs", "does not start with s3://"),
    ("S3://bucket/runs", "does not start with s3://"),
    ("s3://", "no bucket"),
    ("s3:///runs", "no bucket"),
    ("s3://bucket:9000/runs", "not a host and port"),
    ("s3://Bucket/runs", "not a bucket name"),
    ("s3://b/runs", "not a bucket name"),
    ("s3://bucket_x/runs", "not a bucket name"),
    ("s3://192.168.0.1/runs", "not a bucket name"),
    ("s3://bucket//runs", "empty, '.' or '..'"),
    ("s3://bucket/runs/../x", "empty, '.' or '..'"),
    ("s3://bucket/runs?endpoint=x", "no query"),
    ("s3://bucket/ru\nns", "control character"),
])
def test_a_bad_url_is_one_line(text, why):
    with pytest.raises(ValueError) as bad:
        parse_url(text)
    message = str(bad.value)
    assert "\n" not in message and why in message and "s3://BUCKET/PREFIX" in message


def test_credentials_in_a_url_are_refused_and_not_repeated():
    with pytest.raises(ValueError) as bad:
        parse_url("s3://AKIDEXAMPLE:wJalrXUtnFEMI@bucket/runs")
    assert "credentials" in str(bad.value)
    assert "AKIDEXAMPLE" not in str(bad.value) and "wJalrXUtnFEMI" not in str(bad.value)


def test_a_good_url():
    url = parse_url("s3://my-bucket.x/runs/league/")
    assert url == S3Url("my-bucket.x", "runs/league") and str(url) == "s3://my-bucket.x/runs/league"
    assert url.key("quick/run.json") == "runs/league/quick/run.json"
    assert str(url.join("quick")) == "s3://my-bucket.x/runs/league/quick"
    assert parse_url("s3://bucket") == S3Url("bucket", "") == parse_url("s3://bucket/")
    assert parse_url("s3://bucket").key("x") == "x"
    assert is_url("s3://bucket") and is_url("S3:x") and not is_url("runs/s3") and not is_url("")


def test_the_endpoint_and_credentials_show_nowhere(objects, s3_env, monkeypatch):  # noqa: F811
    secrets = (s3_env.access_key, s3_env.secret_key, s3_env.endpoint, s3_env.endpoint.split("//")[1])
    shown = [str(objects), repr(objects), objects.where("quick/run.json"), str(objects.url), repr(objects.url)]
    objects.put_new("quick/run.json", b"{}")
    shown += objects.list() + [repr(objects.get("quick/run.json"))]
    errors = []
    for failing in (lambda: objects.get("quick/missing"),
                    lambda: Objects(f"s3://no-such-bucket-{uuid.uuid4().hex[:8]}/x").get("y")):
        with pytest.raises(OSError) as error:
            failing()
        errors.append(error.value)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s3_env.secret_key + "-wrong")
    with pytest.raises(ObjectStoreError) as refused:
        Objects(objects.url).put_new("quick/x", b"1")
    errors.append(refused.value)
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")  # nothing listens there
    with pytest.raises(ObjectStoreError) as unreachable:
        Objects(objects.url, attempts=1).get("quick/run.json")
    errors.append(unreachable.value)
    assert all(str(e).startswith("s3://") for e in errors), errors
    shown += [str(e) for e in errors] + [repr(e) for e in errors]
    assert not [text for text in shown for secret in secrets if secret in text]


def test_the_endpoint_comes_from_the_aws_environment(objects, s3_env, monkeypatch):  # noqa: F811
    objects.put_new("x", b"1")
    monkeypatch.delenv("AWS_ENDPOINT_URL")
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", s3_env.endpoint)  # the S3-only variable works too
    assert client().meta.endpoint_url == s3_env.endpoint
    assert Objects(objects.url).get("x")[0] == b"1"
