package auth

import (
	"net/http"
	"net/url"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// MetadataPath is where RFC 9728 §3 puts protected-resource metadata.
const MetadataPath = "/.well-known/oauth-protected-resource"

// MetadataURL is the metadata URL for a resource (RFC 9728 §3.1: the
// well-known path is inserted between the host and the resource's path).
func MetadataURL(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host + MetadataPath + strings.TrimSuffix(u.Path, "/")
}

// MetadataHandler serves the resource's metadata, naming its authorization
// servers and Boris's scopes.
func MetadataHandler(resource string, authServers []string) http.Handler {
	return sdkauth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               resource,
		AuthorizationServers:   authServers,
		ScopesSupported:        AllScopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "Boris",
	})
}
