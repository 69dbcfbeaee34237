"""Remote SPARQL endpoints: the protocol client, its HTTP transport, answer classification and traffic control."""
