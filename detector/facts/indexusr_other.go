//go:build !amd64

package facts

// indexUsr is bytes.Index(data, usrBytes); see indexUsrScalar.
func indexUsr(data []byte) int { return indexUsrScalar(data) }
