# Sourced by scripts/ensure-kubectl.sh and scripts/ensure-promtool.sh: one binary out of a Debian
# package, without installing the package (apt-get download + dpkg-deb -x), at .palisade/bin/.
# Why not `apt-get install`: a package can conflict with files other packages own (kubectl from
# google-cloud-sdk), and a test tool needs only its binary, not the package's services.
# The caller sets `package` and defines die(); errors go to stderr with a non-zero exit.

# deb_binary PATH_IN_PACKAGE TARGET: download $package, unpack it, install PATH_IN_PACKAGE at TARGET
deb_binary() {
  local inner=$1 target=$2 tmp
  for tool in apt-get dpkg-deb; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found; this script needs a Debian-based system (package $package)"
  done
  tmp="$(mktemp -d)"
  # apt-get download writes into the current directory; only refresh the package lists when the
  # first attempt fails (stale or missing lists), to stay quick
  download() { (cd "$tmp" && apt-get download -q "$package") >"$tmp/download.log" 2>&1; }
  if ! download; then
    apt-get update -q >"$tmp/update.log" 2>&1 || {
      cat "$tmp/update.log" >&2
      rm -rf "$tmp"
      die "apt-get update failed"
    }
    download || {
      cat "$tmp/download.log" >&2
      rm -rf "$tmp"
      die "apt-get download $package failed"
    }
  fi
  local debs
  debs=("$tmp"/"$package"_*.deb)
  [[ ${#debs[@]} -eq 1 && -f ${debs[0]} ]] || { rm -rf "$tmp"; die "expected one $package .deb after download"; }
  dpkg-deb -x "${debs[0]}" "$tmp/root" || { rm -rf "$tmp"; die "dpkg-deb -x ${debs[0]} failed"; }
  [[ -f "$tmp/root/$inner" ]] || { rm -rf "$tmp"; die "${debs[0]} does not contain $inner"; }
  mkdir -p "$(dirname "$target")"
  # copy beside the target and rename, so a half-written binary is never left at the path
  install -m 0755 "$tmp/root/$inner" "$target.tmp.$$"
  mv -f "$target.tmp.$$" "$target"
  rm -rf "$tmp"
}
