# METADATA
# title: Findings
# description: >-
#   The one helper every control uses to build a finding, so all findings share one shape.
#   A control's severity comes from its METADATA (loaded into data.seedance.controls by the gate)
#   unless data.seedance.severity_overrides changes it; an unknown control counts as mandatory.
# scope: package
package lib.findings

# finding is the shape of every finding: control id, severity, resource and message.
finding(control_id, resource, message) := {
	"control_id": control_id,
	"severity": severity(control_id),
	"urn": resource.urn,
	"resource_type": resource.type,
	"resource_name": resource.name,
	"message": message,
}

severity(control_id) := s if {
	s := _overrides[control_id]
} else := s if {
	s := _controls[control_id].severity
} else := "mandatory"

# read from data once per evaluation (a lookup in data costs regorus far more than one in a rule)
_overrides := object.get(data, ["seedance", "severity_overrides"], {})

_controls := object.get(data, ["seedance", "controls"], {})

# problem is what a control collects before it becomes a finding: a resource and a message. The
# resource's URN leads the object ("at" sorts first), so a set of problems compares URNs, not whole
# resources: comparing two resources with the same message walked their inputs and dominated
# large documents.
problem(resource, message) := {"at": resource.urn, "message": message, "resource": resource}

# stack is the pseudo-resource that stack-wide findings (something missing) are reported on.
stack(document) := {
	"urn": sprintf("urn:pulumi:%s::%s::pulumi:pulumi:Stack::%s-%s", [s, p, p, s]),
	"type": "pulumi:pulumi:Stack",
	"name": sprintf("%s-%s", [p, s]),
} if {
	s := object.get(document, "stack", "stack")
	p := object.get(document, "project", "project")
}
