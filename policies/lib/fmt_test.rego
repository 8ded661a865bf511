package lib.fmt_test

import data.lib.fmt

test_two_decimals if {
	fmt.two_decimals(1250) == "1250.00"
	fmt.two_decimals(4.5) == "4.50"
}

test_percent_up_never_reads_below_what_it_is if {
	fmt.percent_up(1.00001) == "100.01"
	fmt.percent_up(1) == "100"
	fmt.percent_up(0.705) == "70.5"
	fmt.percent_up(1.95209) == "195.21"
	fmt.percent_up(0) == "0"
}

test_percent_down_never_reaches_what_it_has_not if {
	fmt.percent_down(0.84996) == "84.99"
	fmt.percent_down(0.85) == "85"
	fmt.percent_down(0.875) == "87.5"
	fmt.percent_down(1.002241) == "100.22"
	fmt.percent_down(0.29) == "29"
	fmt.percent_down(0.705) == "70.5"
	fmt.percent_down(0.70999) == "70.99"
	fmt.percent_down(0.99999) == "99.99"
	fmt.percent_down(0.0005) == "0.05"
}
