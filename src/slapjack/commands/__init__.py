"""Sub-commands of the slapjack CLI, one module each."""
