"""Snapshot (aclrtSnapShot*, seed 003 §2.2): saves the whole process's runtime state, acl handles
included, so it sits above every other floor."""
