# METADATA
# title: Number formatting
# description: >-
#   Formatting that prints the same on OPA and regorus (their sprintf differs for %f on whole
#   numbers), so messages and the tests asserting them are engine-independent.
# scope: package
package lib.fmt

# two_decimals(1250) == "1250.00", two_decimals(4.5) == "4.50"
two_decimals(x) := sprintf("%s.%s", [format_int(whole, 10), _pad2(format_int(rest, 10))]) if {
	cents := round(x * 100)
	whole := floor(cents / 100)
	rest := cents - (whole * 100)
}

_pad2(s) := s if count(s) >= 2

_pad2(s) := concat("", ["0", s]) if count(s) < 2

# A fraction as a percentage with up to two decimals, trailing zeros dropped, rounded down (with a
# little slack for binary fractions, as thresholds fire): percent_down(0.705) == "70.5",
# percent_down(0.875) == "87.5", percent_down(0.84996) == "84.99". Rounding down is monotonic, so a
# share above a cap, or a cost past a threshold, never reads below it (whole percentages printed a
# cap of 70.5% as 71% beside a share of 71% that exceeds it), and a measured share never reads as a
# threshold it has not reached.
percent_down(x) := _hundredths(floor((x * 10000) + 0.000001))

# The same, rounded up: what a cost above the budget reads (100.001% is "100.01", never "100").
# (never ceil below zero: OPA's ceil gives 1 for -0.000001)
percent_up(x) := _hundredths(ceil(max([(x * 10000) - 0.000001, 0])))

_hundredths(n) := format_int(whole, 10) if {
	whole := floor(n / 100)
	n - (whole * 100) == 0
} else := sprintf("%s.%s", [format_int(whole, 10), format_int(rest / 10, 10)]) if {
	whole := floor(n / 100)
	rest := n - (whole * 100)
	rest % 10 == 0
} else := sprintf("%s.%s", [format_int(whole, 10), _pad2(format_int(rest, 10))]) if {
	whole := floor(n / 100)
	rest := n - (whole * 100)
}
