package mlps.transit_encryption_test

import data.mlps.transit_encryption
import data.lib.fixtures

_f(type, name, msg) := fixtures.finding("MLPS-L3-8.1.2.2", "mandatory", type, name, msg)

_ep(name, private_dns) := fixtures.resource("aws:ec2/vpcEndpoint:VpcEndpoint", name, {
	"serviceName": "cn.com.amazonaws.cn-north-1.kms", "vpcEndpointType": "Interface", "privateDnsEnabled": private_dns,
})

test_pass_tls_and_private_dns if {
	v := transit_encryption.violation with input as fixtures.gate_input(fixtures.mlps_policy, array.concat(fixtures.good_bucket("ds", "internal"), [_ep("kms", true)]))
	v == set()
}

test_fail_plaintext_and_public_dns if {
	v := transit_encryption.violation with input as fixtures.gate_input(fixtures.mlps_policy, [fixtures.bucket("ds", "internal"), _ep("kms", false)])
	v == {
		_f("aws:s3/bucket:Bucket", "ds", "bucket policy does not deny requests without TLS (aws:SecureTransport false)"),
		_f("aws:ec2/vpcEndpoint:VpcEndpoint", "kms", "interface VPC endpoint has private DNS off: clients still resolve the public endpoint"),
	}
}
