import pgctx


def test_append_and_verify(conn):
    s1 = pgctx.append(conn, "c1", "user", {"text": "hello", "n": 1.50})
    s2 = pgctx.append(conn, "c1", "assistant", {"text": "hi"})
    assert (s1, s2) == (1, 2)
    seqs = pgctx.append_many(conn, "c1", [{"kind": "user", "payload": {"a": 1}}, {"kind": "user", "payload": {"b": 2}, "event_key": "k"}])
    assert seqs == [3, 4]
    report = pgctx.verify(conn, "c1")
    assert report.ok, report
    assert report.checked == 4
