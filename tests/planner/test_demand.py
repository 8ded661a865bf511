import datetime as dt

import numpy as np
import pytest

from seedance.planner.demand import DemandError, parse_demand_csv, read_demand_csv, write_demand_csv

UTC = dt.UTC


def test_parse_and_cut_before_decision_point():
    h = parse_demand_csv("# note\nhour,demand\n2024-01-01T00:00:00Z,1.5\n2024-01-01T01:00:00Z,2\n"
                         "2024-01-01T02:00:00Z,3\n", "d.csv")
    assert h.start == dt.datetime(2024, 1, 1, tzinfo=UTC)
    assert list(h.values) == [1.5, 2.0, 3.0]
    assert h.start_hour_of_week == 0  # 2024-01-01 was a Monday
    assert list(h.before(dt.datetime(2024, 1, 1, 2, tzinfo=UTC)).values) == [1.5, 2.0]
    assert h.before(dt.datetime(2023, 1, 1, tzinfo=UTC)).values.size == 0


@pytest.mark.parametrize(
    "text,message",
    [
        ("", "d.csv: empty demand history; expected a header 'hour,demand' and hourly rows"),
        ("when,nodes\n", "d.csv:1: expected header columns 'hour' and 'demand', got ['when', 'nodes']"),
        ("hour,demand\n2024-01-01T00:00:00Z,x\n", "d.csv:2: demand: expected a number of nodes, got 'x'"),
        ("hour,demand\n2024-01-01T00:00:00Z,-1\n", "d.csv:2: demand: expected a number of nodes from 0 to 1,000,000, got '-1'"),
        ("hour,demand\n2024-01-01T00:00:00Z,1\n2024-01-01T01:00:00Z,1e308\n",
         "d.csv:3: demand: expected a number of nodes from 0 to 1,000,000, got '1e308'"),
        ("hour,demand\n2024-01-01T00:00:00Z,1000000.5\n",
         "d.csv:2: demand: expected a number of nodes from 0 to 1,000,000, got '1000000.5'"),
        ("hour,demand\n2024-01-01T00:00:00Z,inf\n", "d.csv:2: demand: expected a number of nodes from 0 to 1,000,000, got 'inf'"),
        ("hour,demand\n2024-01-01T00:00:00Z,nan\n", "d.csv:2: demand: expected a number of nodes from 0 to 1,000,000, got 'nan'"),
        ("hour,demand\n2024-01-01T00:00:00Z,1\n2024-01-01T02:00:00Z,1\n",
         "d.csv:3: hour: expected 2024-01-01T01:00:00Z (consecutive hours), got 2024-01-01T02:00:00Z"),
        ("hour,demand\nmonday,1\n", "d.csv:2: hour: expected an ISO-8601 timestamp such as 2024-01-01T00:00:00Z (an offset "
                                     "such as +05:00 is converted to UTC, no zone is read as UTC), got 'monday'"),
        # float() reads other scripts' digits; --held refuses them, and so does the history
        ("hour,demand\n2024-01-01T00:00:00Z,１\n2024-01-01T01:00:00Z,３\n",
         "d.csv:2: demand: expected a number of nodes written in the digits 0-9, got '１'"),
        ("hour,demand\n2024-01-01T00:00:00Z,1\n2024-01-01T01:00:00Z,\u0663.5\n",
         "d.csv:3: demand: expected a number of nodes written in the digits 0-9, got '\u0663.5'"),
        ("hour,demand\n2024-01-01T00:30:00Z,1\n", "d.csv:2: hour: expected the start of an hour, got '2024-01-01T00:30:00Z'"),
        ("hour,demand\n", "d.csv: no data rows after the header"),
        # a second demand column was silently ignored; Python's float() reads 1_000
        ("hour,demand,demand\n2024-01-01T00:00:00Z,1,2\n", "d.csv:1: expected one 'demand' column, got 2"),
        ("hour,demand\n2024-01-01T00:00:00Z,1_000\n", "d.csv:2: demand: expected a number of nodes, got '1_000'"),
        # the next hour of the last one dates can hold overflowed (an internal error)
        ("hour,demand\n9999-12-31T23:00:00Z,1\n",
         "d.csv:2: hour: expected an hour up to 9999-12-01T00:00:00Z, got '9999-12-31T23:00:00Z'"),
        # an offset that puts the hour before the first (or after the last) hour in UTC overflowed
        ("hour,demand\n0001-01-01T00:00:00+05:00,1\n",
         "d.csv:2: hour: expected an hour from 0001-01-01T00:00:00Z to 9999-12-01T00:00:00Z (in UTC), "
         "got '0001-01-01T00:00:00+05:00'"),
        ("hour,demand\n9999-12-31T23:00:00-05:00,1\n",
         "d.csv:2: hour: expected an hour from 0001-01-01T00:00:00Z to 9999-12-01T00:00:00Z (in UTC), "
         "got '9999-12-31T23:00:00-05:00'"),
    ],
)
def test_errors_name_file_and_line(text, message):
    with pytest.raises(DemandError) as exc:
        parse_demand_csv(text, "d.csv")
    assert str(exc.value) == message


def test_roundtrip(tmp_path):
    p = tmp_path / "x.csv"
    write_demand_csv(p, dt.datetime(2024, 3, 4, 5, tzinfo=UTC), np.array([1.0, 2.25]), comment="derived")
    h = read_demand_csv(p)
    assert h.start == dt.datetime(2024, 3, 4, 5, tzinfo=UTC) and list(h.values) == [1.0, 2.25]
    with pytest.raises(DemandError, match="cannot read: .*of demand history"):
        read_demand_csv(tmp_path / "missing.csv")


def test_offsets_are_converted_and_zoneless_hours_read_as_utc():
    # as the error message says: the same three hours, written three ways
    h = parse_demand_csv("hour,demand\n2024-01-01T05:00:00+05:00,1\n2024-01-01T01:00:00,2\n2024-01-01T02:00:00Z,3\n", "d.csv")
    assert h.start == dt.datetime(2024, 1, 1, tzinfo=UTC) and list(h.values) == [1.0, 2.0, 3.0]


def test_the_largest_demand_is_accepted():
    h = parse_demand_csv("hour,demand\n2024-01-01T00:00:00Z,1000000\n", "d.csv")
    assert list(h.values) == [1_000_000.0]


def test_a_file_that_is_not_utf8_names_file_and_line(tmp_path):
    p = tmp_path / "d.csv"
    p.write_bytes(b"hour,demand\n2024-01-01T00:00:00Z,1\n\xff\xfe x\n")
    with pytest.raises(DemandError) as exc:
        read_demand_csv(p)
    assert str(exc.value) == f"{p}:3: not UTF-8 text (byte 0xff at offset 35); expected a CSV file 'hour,demand' of demand history"


def test_a_byte_order_mark_is_allowed(tmp_path):
    p = tmp_path / "d.csv"
    p.write_bytes("\ufeffhour,demand\n2024-01-01T00:00:00Z,2\n".encode())
    assert list(read_demand_csv(p).values) == [2.0]


def test_line_numbers_count_only_the_line_ends_editors_show():
    # str.splitlines() also breaks at U+2028 and friends, which put the error a line below the bad row
    text = "hour,demand\n2024-01-01T00:00Z,1 \u2028\n2024-01-01T01:00Z,x\n"
    with pytest.raises(DemandError, match=r"^h.csv:3: demand: expected a number of nodes, got 'x'$"):
        parse_demand_csv(text, "h.csv")
    # CRLF and CR-only files still read as lines
    assert parse_demand_csv("hour,demand\r\n2024-01-01T00:00Z,1\r\n2024-01-01T01:00Z,2\r\n").values.tolist() == [1, 2]
    assert parse_demand_csv("hour,demand\r2024-01-01T00:00Z,1\r2024-01-01T01:00Z,2\r").values.tolist() == [1, 2]
