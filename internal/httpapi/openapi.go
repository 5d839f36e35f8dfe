package httpapi

import (
	_ "embed"
	"net/http"
)

// openAPI is the hand-written OpenAPI 3 description of the API; a test
// checks that it parses and documents exactly the routes the server has.
//
//go:embed openapi.json
var openAPI []byte

func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(openAPI)
}
