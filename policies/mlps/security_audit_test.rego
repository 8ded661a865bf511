package mlps.security_audit_test

import data.mlps.security_audit
import data.lib.fixtures

test_pass_trail_and_eks_logs if {
	eks := fixtures.resource("aws:eks/cluster:Cluster", "eks", {"enabledClusterLogTypes": ["audit", "authenticator"]})
	v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.trail("audit", {}), eks])
	v == set()
}

test_fail_single_region_trail_and_silent_eks if {
	eks := fixtures.resource("aws:eks/cluster:Cluster", "eks", {"enabledClusterLogTypes": ["api"]})
	trail := fixtures.trail("audit", {"isMultiRegionTrail": false})
	v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [trail, eks])
	v == {
		fixtures.stack_finding("MLPS-L3-8.1.4.3a", "mandatory", "no multi-region CloudTrail trail records management events"),
		fixtures.finding("MLPS-L3-8.1.4.3a", "mandatory", "aws:eks/cluster:Cluster", "eks", "EKS cluster does not send audit, authenticator logs"),
	}
}

test_fail_management_events_off if {
	trail := fixtures.trail("audit", {"eventSelectors": [{"includeManagementEvents": false, "readWriteType": "All"}]})
	v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [trail])
	v == {fixtures.stack_finding("MLPS-L3-8.1.4.3a", "mandatory", "no multi-region CloudTrail trail records management events")}
}

# audit A6: advanced selectors replace the basic ones; selecting only Data events records no management events
test_fail_advanced_selectors_without_management_events if {
	trail := fixtures.trail("audit", {"eventSelectors": [], "advancedEventSelectors": [{"name": "data", "fieldSelectors": [
		{"field": "eventCategory", "equals": ["Data"]},
		{"field": "resources.type", "equals": ["AWS::S3::Object"]},
	]}]})
	v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [trail])
	v == {fixtures.stack_finding("MLPS-L3-8.1.4.3a", "mandatory", "no multi-region CloudTrail trail records management events")}
}

test_pass_advanced_selectors_with_management_events if {
	trail := fixtures.trail("audit", {"eventSelectors": [], "advancedEventSelectors": [{"name": "mgmt", "fieldSelectors": [{"field": "eventCategory", "equals": ["Management"]}]}]})
	v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [trail])
	v == set()
}

# test audit: a trail with no selectors of either kind records management events (the default)
test_pass_trail_without_selectors if {
	trail := fixtures.trail("audit", {"eventSelectors": [], "advancedEventSelectors": []})
	v := security_audit.violation with input as fixtures.gate_input(fixtures.mlps_policy, [trail])
	v == set()
}
