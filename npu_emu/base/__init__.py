"""The base every floor stands on: errors (ACL codes), the trace bus, hot events."""
