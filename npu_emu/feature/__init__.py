"""The runtime's features (seed 003 §2, the runtime's feature/ folders): the model (aclmdlRI) with
AutoSplit, ACL Graph capture, fusion launch, HCCL collectives."""
