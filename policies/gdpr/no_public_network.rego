package gdpr.no_public_network

import data.lib.compute
import data.lib.findings
import data.lib.frameworks
import data.lib.network
import data.lib.resources
import data.lib.routing

# METADATA
# title: "No public network exposure"
# description: >-
#   Personal-data instances get no public IP (nor an Elastic IP, on them or on a network interface
#   they carry or that serves personal data, nor one from a default subnet of the default VPC,
#   where what names no subnet lands), no security group admits 0.0.0.0/0 or ::/0 except on 443,
#   and Kubernetes LoadBalancer Services and ALB Ingresses are internal (a Service's
#   aws-load-balancer-scheme annotation decides over aws-load-balancer-internal, an
#   IngressClassParams scheme over its Ingresses' annotations; a server-side patch is judged by what
#   it sets). Personal-data databases, Redshift,
#   DMS and MQ are not publiclyAccessible, and an internet-facing load balancer in front of
#   personal data (tagged personal, or forwarding to a target group tagged personal or where a
#   personal-data autoscaling group or instance registers) answers on 443 only: every listener
#   that may carry data is on port 443.
# related_resources:
#   - ref: https://gdpr-info.eu/art-25-gdpr/
# custom:
#   control_id: GDPR-25.2-2
#   clause: "Art. 25(2)"
#   framework: gdpr
#   severity: mandatory
#   remediation: >-
#     Set associatePublicIpAddress false on personal-data launch templates and instances and name a
#     private subnet of the stack, release Elastic IPs from them and their network interfaces (reach
#     them through a load balancer), narrow world-open ingress to 443 on internet load balancers,
#     and annotate LoadBalancer Services aws-load-balancer-scheme internal (or waive); set
#     publiclyAccessible false on personal-data stores; keep the listeners of internet load
#     balancers in front of personal data on 443 (an HTTP listener may only redirect to HTTPS), or
#     make them internal (internal true), or waive them.
violation contains findings.finding("GDPR-25.2-2", p.resource, p.message) if {
	frameworks.applies(input.policy, "gdpr")
	some p in _problems
}

_problems contains findings.problem(lt, msg) if {
	some i in compute.indices & resources.personal_indices
	lt := input.document.resources[i]
	network.public_ip(lt)
	msg := sprintf("personal-data %s", [compute.public_ip_phrase(lt)])
}

_problems contains findings.problem(lt, msg) if {
	some i in compute.indices & resources.personal_indices
	lt := input.document.resources[i]
	compute.public_ip_unknown(lt)
	msg := sprintf("personal-data %s may give instances a public IP: associatePublicIpAddress is %s", [compute.noun(lt), compute.public_ip_why(lt)])
}

# personal data launched from a template the document does not hold
_problems contains compute.unseen_launch_problem(i, ref, "whether its instances get a public IP") if {
	some [i, ref] in compute.unseen_launch_sources
	i in resources.personal_indices
	not compute.overrides_template(input.document.resources[i], "associatePublicIpAddress")
}

# personal data that names no subnet lands in a default subnet of the default VPC, which maps
# public IPs on launch (lib.routing), or runs in an adopted default subnet that does
_problems contains findings.problem(r, msg) if {
	some i, parts in routing.default_subnet_public
	i in resources.personal_indices
	r := input.document.resources[i]
	some part in parts
	msg := sprintf("personal-data %s: EC2 launches it into a default subnet of the default VPC, which maps public IPs on launch, so it gets a public IP; name a private subnet of the stack (or set associatePublicIpAddress false)", [routing.no_subnet_phrase(r, part)])
}

_problems contains findings.problem(r, msg) if {
	some i, subnets in routing.default_subnets
	i in compute.indices & resources.personal_indices
	r := input.document.resources[i]
	some s in subnets
	routing.default_subnet_maps(s)
	compute.public_ip_left_to_subnet(r)
	msg := sprintf("personal-data %s runs in default subnet %s, which maps public IPs on launch unless mapPublicIpOnLaunch is false: it gets a public IP", [compute.noun(r), input.document.resources[s].name])
}

# an Elastic IP on the instance, or on a network interface it carries (lib.network)
_problems contains findings.problem(r, sprintf("personal-data %s gets a public IP (%s)", [compute.noun(r), why])) if {
	some i, whys in network.elastic_ips
	i in resources.personal_indices
	r := input.document.resources[i]
	some why in whys
}

# an Elastic IP on a network interface no instance of the stack carries, where the interface
# serves personal data
_problems contains findings.problem(input.document.resources[loose.position], msg) if {
	some loose in network.loose_interface_eips
	reasons := network.loose_personal_reasons(loose)
	count(reasons) > 0
	msg := sprintf("%s; it serves personal data: %s", [loose.message, concat("; ", sort(reasons))])
}

_problems contains findings.problem(rule.resource, msg) if {
	some rule in network.world_ingress_rules(input.document)
	not network.only_ports(rule, {443})
	msg := network.admits(rule)
}

# annotated internal by lib.network's reading: the scheme annotation, when present, decides
_problems contains findings.problem(svc, network.service_exposure(svc)) if {
	some svc in network.services(input.document)
	object.get(svc.inputs, ["spec", "type"], "ClusterIP") == "LoadBalancer"
	not network.internal_service(svc)
}

# a type (or spec) the document does not show may be LoadBalancer
_problems contains findings.problem(svc, msg) if {
	some svc in network.services(input.document)
	some v in [object.get(svc.inputs, "spec", {}), object.get(svc.inputs, ["spec", "type"], "ClusterIP")]
	resources.hidden(v)
	not network.internal_service(svc)
	msg := sprintf("Service type is %s, so it may be an internet-facing LoadBalancer", [resources.hidden_why(v)])
}

# an Ingress the AWS Load Balancer Controller serves with an internet-facing ALB (its default
# scheme is internal)
_problems contains findings.problem(ing, "Ingress is internet-facing (alb.ingress.kubernetes.io/scheme)") if {
	some t in resources.k8s_types(input.document)
	resources.kind(t) == "Ingress" # an IngressPatch too: what it sets
	some ing in resources.of_type(input.document, t)
	object.get(ing.inputs, ["metadata", "annotations", "alb.ingress.kubernetes.io/scheme"], "internal") == "internet-facing"
}

# a scheme annotation (or annotations) the document does not show may be internet-facing
_problems contains findings.problem(ing, msg) if {
	some t in resources.k8s_types(input.document)
	resources.kind(t) == "Ingress"
	some ing in resources.of_type(input.document, t)
	some v in [object.get(ing.inputs, ["metadata", "annotations"], {}), object.get(ing.inputs, ["metadata", "annotations", "alb.ingress.kubernetes.io/scheme"], "internal")]
	resources.hidden(v)
	msg := sprintf("Ingress scheme (alb.ingress.kubernetes.io/scheme) is %s, so it may be internet-facing", [resources.hidden_why(v)])
}

# an IngressClassParams whose scheme is internet-facing (or not shown) gives every Ingress of the
# IngressClasses naming it that scheme, whatever their alb.ingress.kubernetes.io/scheme annotation
# (AWS Load Balancer Controller, IngressClassParams spec.scheme)
_problems contains findings.problem(params, msg) if {
	some t in resources.k8s_types(input.document)
	startswith(t, "kubernetes:elbv2.k8s.aws/")
	resources.kind(t) == "IngressClassParams" # an IngressClassParamsPatch too: what it sets
	some params in resources.of_type(input.document, t)
	some v in [object.get(params.inputs, "spec", {}), object.get(params.inputs, ["spec", "scheme"], "internal")]
	_ingress_class_exposure(v) != ""
	msg := sprintf("IngressClassParams %s: every Ingress of the IngressClasses that name it gets that scheme, whatever its alb.ingress.kubernetes.io/scheme annotation says", [_ingress_class_exposure(v)])
}

_ingress_class_exposure(v) := "sets scheme internet-facing" if {
	v == "internet-facing"
} else := sprintf("scheme is %s, so it may be internet-facing", [resources.hidden_why(v)]) if {
	resources.hidden(v)
} else := ""

# personal-data stores publiclyAccessible puts on the internet (lib.public_access)
_problems contains findings.problem(input.document.resources[i], sprintf("personal-data %s", [msg])) if {
	some i, msg in data.lib.public_access.public_stores
	i in data.lib.public_access.personal_stores
}

# internet-facing load balancers in front of personal data that the internet may reach on a port
# other than 443 (lib.public_access)
_problems contains findings.problem(input.document.resources[i], msg) if {
	some i, gaps in data.lib.public_access.open_ports
	msg := sprintf("%s and fronts personal data: %s; it is not shown to answer on 443 only: %s", [data.lib.public_access.internet_lbs[i], data.lib.public_access.personal_lbs[i], concat("; ", gaps)])
}
