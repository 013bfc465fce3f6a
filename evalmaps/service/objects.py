"""Object storage (S3 and S3-compatible stores): where the upload store and data folders may live
when a team outgrows one disk and one host (``EVALMAPS_STORE=s3://bucket/prefix``, ``--data
s3://bucket/folder``).

The connection is configured by the standard variables, read by botocore as every AWS tool reads
them: ``AWS_ENDPOINT_URL`` (an S3-compatible server: MinIO, Ceph, R2, ...; unset: AWS itself),
``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY`` and ``AWS_REGION`` (or ``AWS_DEFAULT_REGION``).
Objects are read and written through ``s3fs`` (fsspec), installed with ``pip install
'evalmaps[s3]'``.

Per-item records (Parquet) are queried by DuckDB where they lie:
:class:`evalmaps.service.object_items.RemoteItemRecords`
registers the fsspec file system on its DuckDB connection (``register_filesystem``), so that
``read_parquet('s3://...')`` reads only the byte ranges a query needs. DuckDB's own ``httpfs``
extension is not used: it is downloaded from DuckDB's extension server at run time (evalmaps
fetches nothing from another host while it runs), and the registry packages that carry it are
built for other DuckDB versions than the one installed (an extension loads only into the
version it was built for).
"""

from __future__ import annotations

import os
import re
import threading

from evalmaps.core.errors import EvalmapsError

SCHEMES = ("s3",)  # what a URL of a store or a data folder may name
URL_RE = re.compile(r"^(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*)://(?P<rest>.*)$")
BUCKET_RE = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")
VARIABLES = "AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_REGION"


class ObjectStoreError(EvalmapsError):
    """An object store that cannot be used as given (its URL, its package, its answer)."""


def is_url(text: object) -> bool:
    """Whether ``text`` names a location by URL (``s3://...``), not a path on this host."""
    return isinstance(text, str) and URL_RE.match(text) is not None


def parse_url(text: str, what: str = "a location") -> tuple[str, str]:
    """``s3://bucket/prefix`` -> ``("bucket", "prefix")`` (prefix without slashes at its ends,
    maybe empty). Anything else is an :class:`ObjectStoreError` that says what is accepted."""
    match = URL_RE.match(text.strip())
    if match is None:
        raise ObjectStoreError(f"{text} is not a URL. Give {what} as s3://bucket/prefix.")
    scheme = match["scheme"].lower()
    if scheme not in SCHEMES:
        raise ObjectStoreError(f"{text}: {scheme}:// is not an object store evalmaps reads. "
                               f"Give {what} as s3://bucket/prefix (S3 or an S3-compatible "
                               f"server, set by AWS_ENDPOINT_URL), or a folder.")
    bucket, _, prefix = match["rest"].partition("/")
    if not BUCKET_RE.match(bucket):
        raise ObjectStoreError(f"{text}: '{bucket}' is not a bucket name (3 to 63 lower-case "
                               f"letters, digits, dots and hyphens). Give {what} as "
                               f"s3://bucket/prefix.")
    prefix = prefix.strip("/")
    if any(part in ("", ".", "..") for part in prefix.split("/")) and prefix:
        raise ObjectStoreError(f"{text}: the prefix has an empty, '.' or '..' part. Give {what} "
                               f"as s3://bucket/prefix.")
    return bucket, prefix


def canonical(text: str, what: str = "a location") -> str:
    """The URL ``text`` written one way: ``s3://bucket/prefix`` (checked by :func:`parse_url`)."""
    bucket, prefix = parse_url(text, what)
    return f"s3://{bucket}/{prefix}" if prefix else f"s3://{bucket}"


_FS: dict = {}
_FS_LOCK = threading.Lock()


def filesystem():
    """This process's S3 file system (s3fs), configured by the standard variables. Listings are
    never cached: another server's new object must be seen at the next look. One per process (a
    forked worker makes its own: s3fs's event loop does not survive a fork)."""
    with _FS_LOCK:
        fs = _FS.get(os.getpid())
        if fs is not None:
            return fs
        try:
            import s3fs
        except ImportError:
            raise ObjectStoreError("s3:// locations need the s3 extra, which is not installed. "
                                   "Install it with pip install 'evalmaps[s3]'.") from None
        client = {}
        region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
        if region:
            client["region_name"] = region
        endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
        if endpoint:
            client["endpoint_url"] = endpoint
        fs = s3fs.S3FileSystem(use_listings_cache=False, skip_instance_cache=True,
                               client_kwargs=client)
        _FS.clear()
        _FS[os.getpid()] = fs
        return fs


def failure(exc: BaseException, url: str, doing: str) -> ObjectStoreError:
    """One or two sentences for an object store's failure (no bucket, no credentials, refused,
    unreachable) while ``doing`` something at ``url``; one of ours (no s3 extra) as it is."""
    if isinstance(exc, ObjectStoreError):
        return exc
    name = type(exc).__name__
    text = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else name
    if "NoCredentials" in name or "credentials" in text.lower():
        why = f"no credentials were found ({text}). Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
    elif isinstance(exc, FileNotFoundError) or "NoSuchBucket" in text:
        why = f"the bucket or prefix does not exist ({text}). Create the bucket, or check the URL"
    elif isinstance(exc, PermissionError) or "AccessDenied" in text or "Forbidden" in text:
        why = f"access is refused ({text}). Check the credentials and the bucket's policy"
    else:
        why = f"it did not answer as an S3 server ({name}: {text}). Check {VARIABLES}"
    return ObjectStoreError(f"{doing} {url} failed: {why}.")


def join(base: str, *parts: str) -> str:
    """``bucket/prefix`` and parts -> ``bucket/prefix/part/...`` (s3fs's paths: no scheme)."""
    return "/".join([base.rstrip("/"), *(p.strip("/") for p in parts if p)])


def connection_variables() -> dict[str, str]:
    """The standard variables set in this process (an upload's child process is given them: a
    fork server's children inherit its environment, not the server's)."""
    return {k: v for k, v in os.environ.items() if k.startswith("AWS_")}


def use_variables(variables: dict[str, str] | None) -> None:
    """Set the standard variables of the process that started this one (see
    :func:`connection_variables`); the file system is made anew with them."""
    if variables:
        os.environ.update(variables)
        with _FS_LOCK:
            _FS.clear()
