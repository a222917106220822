#!/bin/bash
cd /work/wt-uobj/selftests
rc=0
for t in prf_uobj_test prf_lifetime_test prf_rdonly_test prf_ioctl_test prf_hotplug_test; do ./$t || rc=1; done
exit $rc
