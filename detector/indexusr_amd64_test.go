package detector

func init() {
	// The vector path, checked directly (indexUsr takes it only from
	// usrAVX2Window bytes on); without AVX2, indexUsr is the scalar search.
	if useAVX2 {
		indexUsrImpls["indexUsrVector"] = indexUsrVector
	}
}
