package mlps.remote_administration

import data.lib.cidr
import data.lib.compute
import data.lib.findings
import data.lib.frameworks
import data.lib.network
import data.lib.resources

# METADATA
# title: "Protected remote administration"
# description: >-
#   No security group, internet-facing LoadBalancer Service or listener of an internet-facing load
#   balancer opens SSH (22) or RDP (3389) to the internet, launch templates, launch
#   configurations, instances and EKS node groups carry no SSH key pair (administer through
#   Session Manager; a node group's key without source security groups opens 22 to the
#   internet), and EKS API endpoints are private or CIDR-restricted.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.4.1
#   clause: "8.1.4.1 c) d)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Remove world-open 22/3389, drop keyName from the launch template and use SSM Session
#     Manager, set endpointPublicAccess false or publicAccessCidrs to the admin network.
violation contains findings.finding("MLPS-L3-8.1.4.1", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_problems contains findings.problem(rule.resource, msg) if {
	some rule in network.world_ingress_rules(input.document)
	some port in network.admin_ports
	network.covers(rule, port)
	msg := sprintf("%s opens administration port %d to %s%s", [rule.group, port, network.reach(rule), network.protocol_note(rule)])
}

_problems contains findings.problem(lt, msg) if {
	some i in compute.indices
	lt := input.document.resources[i]
	compute.key_name(lt) != ""
	msg := sprintf("%s installs an SSH key pair (keyName); use Session Manager", [compute.noun(lt)])
}

_problems contains compute.unseen_launch_problem(i, ref, "whether it installs an SSH key pair") if {
	some [i, ref] in compute.unseen_launch_sources
	not compute.overrides_template(input.document.resources[i], "keyName")
}

# an internet-facing load balancer answers the internet on its listeners' ports (lib.public_access);
# a port the document does not show may be one of them
_problems contains findings.problem(r, msg) if {
	some [r, _, what, port] in data.lib.public_access.internet_listeners
	msg := data.lib.public_access.exposed_port_message(what, port, network.admin_ports, "administration")
}

# the cloud controller opens a LoadBalancer Service's ports to the internet outside the document
_problems contains findings.problem(svc, msg) if {
	some svc in network.internet_services(input.document)
	some port in network.service_ports(svc) & network.admin_ports
	msg := sprintf("%s exposes administration port %d", [network.internet_service_noun(svc), port])
}

# the endpoint is public unless endpointPublicAccess is false; a value unknown until apply counts as public
_problems contains findings.problem(c, msg) if {
	some c in resources.of_type(input.document, "aws:eks/cluster:Cluster")
	not object.get(c.inputs, ["vpcConfig", "endpointPublicAccess"], true) in {false, "false"}
	msg := _eks_public(object.get(c.inputs, ["vpcConfig", "publicAccessCidrs"], ["0.0.0.0/0"]))
}

_eks_public(cidrs) := "EKS API endpoint is public to the whole internet" if {
	is_array(cidrs)
	cidr.internet(cidrs) # 0.0.0.0/0, or ranges that together cover it
}

_eks_public(cidrs) := "EKS API endpoint is public and its publicAccessCidrs are not known until apply, so a restriction cannot be established" if {
	not is_array(cidrs)
}

# a CIDR the document does not show (unknown until apply, or secret) may be 0.0.0.0/0
_eks_public(cidrs) := sprintf("EKS API endpoint is public and its publicAccessCidrs hold a CIDR the document does not show (%s), so a restriction cannot be established", [concat(", ", whys)]) if {
	is_array(cidrs)
	not cidr.internet(cidrs)
	whys := sort({resources.hidden_why(v) | some v in cidrs; resources.hidden(v)})
	count(whys) > 0
}

# a managed node group with an SSH key: a key pair on the nodes and, without source security
# groups, port 22 open to 0.0.0.0/0 (EKS RemoteAccessConfig)
_problems contains findings.problem(ng, msg) if {
	some ng in resources.of_type(input.document, "aws:eks/nodeGroup:NodeGroup")
	object.get(ng.inputs, ["remoteAccess", "ec2SshKey"], "") != ""
	some msg in _node_group_ssh(object.get(ng.inputs, ["remoteAccess", "sourceSecurityGroupIds"], []))
}

_node_group_ssh(sources) := {"EKS node group installs an SSH key pair (remoteAccess.ec2SshKey); use Session Manager"} if {
	is_array(sources)
	count(sources) > 0
} else := {
	"EKS node group installs an SSH key pair (remoteAccess.ec2SshKey); use Session Manager",
	"EKS node group opens administration port 22 to the internet (remoteAccess without sourceSecurityGroupIds)",
}
