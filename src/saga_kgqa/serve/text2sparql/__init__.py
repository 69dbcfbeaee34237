"""The TEXT2SPARQL face: the challenge's HTTP API answered by the agent."""
