"""GE runtime errors. Each is an AclError carrying the code the ACL model calls return for it, so
the pyACL facade turns them into return codes like the runtime's own errors, and every face can
print one line for any of them."""
from __future__ import annotations

from npu_emu.base.errors import (ACL_ERROR_GE_FAILURE, ACL_ERROR_INVALID_MODEL_ID,
                            ACL_ERROR_MODEL_INPUT_NOT_MATCH, ACL_ERROR_MODEL_OUTPUT_NOT_MATCH,
                            ACL_ERROR_READ_MODEL_FAILURE, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                            AclError)


class ModelLoadError(AclError):
    """A model that cannot be loaded: a bad OM, a task the loader cannot make, no room."""

    code = ACL_ERROR_READ_MODEL_FAILURE


class InvalidModelIdError(AclError):
    code = ACL_ERROR_INVALID_MODEL_ID


class ModelInputError(AclError):
    """Inputs that do not match the model's: count, size, shape or dtype."""

    code = ACL_ERROR_MODEL_INPUT_NOT_MATCH


class ModelOutputError(AclError):
    code = ACL_ERROR_MODEL_OUTPUT_NOT_MATCH


class ModelExecuteTimeout(AclError):
    """The execution did not finish within its timeout; the model was aborted (it can run
    again)."""

    code = ACL_ERROR_RT_STREAM_SYNC_TIMEOUT


class GeError(AclError):
    """A GE call used wrongly (a graph id never added, a graph run before it was built...)."""

    code = ACL_ERROR_GE_FAILURE
