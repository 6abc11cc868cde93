//go:build !amd64

package detect

// indexUsr is bytes.Index(data, usrBytes); see indexUsrScalar.
func indexUsr(data []byte) int { return indexUsrScalar(data) }
