package nixdriver

// OfflineOptions are the Nix settings of a run without a network (the
// CLI's --offline): no binary cache is asked for what a build would
// produce (substituters empty, so no "unable to download
// .../nix-cache-info ... retrying" for seconds before every build), and
// a download that fails (a fetch of an archive from a URL) fails at once
// instead of being tried again five times with growing pauses. Both names
// are Nix 2.8's, and still today's.
var OfflineOptions = [][2]string{
	{"substituters", ""},
	{"download-attempts", "1"},
}
