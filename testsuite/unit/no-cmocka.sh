#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# no-cmocka.sh - make check's unit phase when configure found no cmocka:
# no unit test was built, which is a failure, not a pass with none.
echo "FAIL: cmocka not found at configure time: no unit test was built (apt-get install libcmocka-dev, then configure again)"
exit 1
