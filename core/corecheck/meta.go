package corecheck

// RelatedRequestMeta is the _meta key of the tag the gateway gives each
// request it sends a principal's core (whose requests come from many
// clients at once), and the core copies into the _meta of the
// notifications it sends about that request (an extension tool's logs),
// so the gateway routes them to that request whatever else is in flight.
const RelatedRequestMeta = "io.github.mjkoo.boris/related-request"
