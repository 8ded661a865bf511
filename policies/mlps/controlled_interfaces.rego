package mlps.controlled_interfaces

import data.lib.compute
import data.lib.endpoints
import data.lib.findings
import data.lib.frameworks
import data.lib.karpenter
import data.lib.network
import data.lib.resources
import data.lib.routing

# METADATA
# title: "Traffic only through controlled interfaces"
# description: >-
#   Subnets (adopted default subnets too) do not map public IPs on launch, launch templates give no
#   public IP, no instance lands in a default subnet of the default VPC by naming no subnet, no
#   Elastic IP is attached to an instance or a network interface, data subnets (tagged personal or
#   internal) have no route to an internet gateway, and S3, KMS, CloudWatch Logs and ECR are reached
#   through VPC endpoints rather than the internet. No data store (RDS, Neptune, Redshift, DMS, MQ)
#   is publiclyAccessible.
# related_resources:
#   - ref: https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF
# custom:
#   control_id: MLPS-L3-8.1.3.1a
#   clause: "8.1.3.1 a)"
#   framework: mlps-l3
#   severity: mandatory
#   remediation: >-
#     Set mapPublicIpOnLaunch false, associatePublicIpAddress false, name a private subnet of the
#     stack for every instance, release Elastic IPs of instances and network interfaces (reach them
#     through a load balancer), associate data subnets with route tables whose default route goes
#     through a NAT gateway or nowhere (never an internet gateway), and create VPC endpoints for s3,
#     kms, logs, ecr.api and ecr.dkr (network.endpoints in the policy; network.existingEndpoints for
#     those the VPC already has); set publiclyAccessible false on data stores.
violation contains findings.finding("MLPS-L3-8.1.3.1a", p.resource, p.message) if {
	frameworks.applies(input.policy, "mlps-l3")
	some p in _problems
}

_required := ["s3", "kms", "logs", "ecr.api", "ecr.dkr"]

_problems contains findings.problem(sn, "subnet maps public IPs on launch") if {
	some sn in resources.of_type(input.document, "aws:ec2/subnet:Subnet")
	resources.truthy(object.get(sn.inputs, "mapPublicIpOnLaunch", false))
}

_problems contains findings.problem(lt, msg) if {
	some i in compute.indices
	lt := input.document.resources[i]
	network.public_ip(lt)
	msg := compute.public_ip_phrase(lt)
}

_problems contains findings.problem(lt, msg) if {
	some i in compute.indices
	lt := input.document.resources[i]
	compute.public_ip_unknown(lt)
	msg := sprintf("%s may give instances a public IP: associatePublicIpAddress is %s", [compute.noun(lt), compute.public_ip_why(lt)])
}

_problems contains compute.unseen_launch_problem(i, ref, "whether its instances get a public IP") if {
	some [i, ref] in compute.unseen_launch_sources
	not compute.overrides_template(input.document.resources[i], "associatePublicIpAddress")
}

_problems contains findings.problem(nc, "EC2NodeClass gives nodes a public IP (associatePublicIPAddress)") if {
	some i in karpenter.node_class_indices
	nc := input.document.resources[i]
	karpenter.public_ip(nc)
}

# what names no subnet lands in a default subnet of the default VPC, which maps public IPs on
# launch (lib.routing), or runs in an adopted default subnet that does
_problems contains findings.problem(r, msg) if {
	some i, parts in routing.default_subnet_public
	r := input.document.resources[i]
	some part in parts
	msg := sprintf("%s: EC2 launches it into a default subnet of the default VPC, which maps public IPs on launch, so it gets a public IP; name a private subnet of the stack (or set associatePublicIpAddress false)", [routing.no_subnet_phrase(r, part)])
}

_problems contains findings.problem(r, msg) if {
	some i, subnets in routing.default_subnets
	i in compute.indices
	r := input.document.resources[i]
	some s in subnets
	routing.default_subnet_maps(s)
	compute.public_ip_left_to_subnet(r)
	msg := sprintf("%s runs in default subnet %s, which maps public IPs on launch unless mapPublicIpOnLaunch is false: it gets a public IP", [compute.noun(r), input.document.resources[s].name])
}

# an adopted default subnet that maps public IPs on launch (unless set false)
_problems contains findings.problem(sn, "default subnet maps public IPs on launch (mapPublicIpOnLaunch is not set false)") if {
	some s in resources.indices(routing.default_subnet_type)
	routing.default_subnet_maps(s)
	sn := input.document.resources[s]
}

# an Elastic IP on the instance, or on a network interface it carries (lib.network)
_problems contains findings.problem(r, sprintf("%s gets a public IP (%s)", [compute.noun(r), why])) if {
	some i, whys in network.elastic_ips
	r := input.document.resources[i]
	some why in whys
}

# an Elastic IP on a network interface no instance of the stack carries
_problems contains findings.problem(input.document.resources[p.position], p.message) if {
	some p in network.loose_interface_eips
}

_problems contains findings.problem(findings.stack(input.document), msg) if {
	some service in _required
	not endpoints.present(input.document, service)
	msg := endpoints.missing_message(service, "its traffic crosses the internet boundary through NAT")
}

# data subnets: subnets of sensitive (personal or internal) data
_data_subnets := resources.indices(routing.subnet_type) & resources.sensitive_indices

_problems contains findings.problem(input.document.resources[s], msg) if {
	some s in _data_subnets
	some t in routing.tables_of(s)
	some route in routing.routes_of(t)
	routing.to_internet_gateway(route)
	msg := sprintf("data subnet routes %v to an internet gateway (%v, %s)", [
		route.destination, route.gateway, routing.label(t),
	])
}

_problems contains findings.problem(input.document.resources[s], msg) if {
	some s in _data_subnets
	some t in routing.tables_of(s)
	some route in routing.routes_of(t)
	routing.gateway_undetermined(route)
	msg := sprintf("data subnet routes %v through a gateway unknown until apply (%s): it may be an internet gateway", [
		route.destination, routing.label(t),
	])
}

_problems contains findings.problem(input.document.resources[s], msg) if {
	some s in _data_subnets
	some t in routing.tables_of(s)
	routing.unknown_routes(t)
	msg := sprintf("data subnet uses %s, whose routes are unknown until apply and cannot be checked", [routing.label(t)])
}

_problems contains findings.problem(input.document.resources[s], msg) if {
	some s in _data_subnets
	some reason in routing.uncertain[s]
	msg := sprintf("data subnet's routes cannot be checked: %s", [reason])
}

# data stores publiclyAccessible puts on the internet (lib.public_access): a public endpoint and IP
# outside the controlled interfaces, whatever data they hold
_problems contains findings.problem(input.document.resources[i], msg) if {
	some i, msg in data.lib.public_access.public_stores
}
