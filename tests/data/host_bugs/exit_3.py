"""Bug class: sys.exit(3). The workbench reports the program's own exit status."""
import sys

import npu_emu.acl as acl

acl.init()
print("giving up")
sys.exit(3)
