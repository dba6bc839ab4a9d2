#include "proto/rpc_credentials.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"
#include "common/base/status_macros.h"

namespace pruner {
namespace {

constexpr std::string_view kBearer = "Bearer ";

absl::StatusOr<std::string> ReadWholeFile(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", ToAbsl(what), " file '", path, "'"));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string_view HostOf(std::string_view address) {
  if (address.starts_with("ipv4:") || address.starts_with("ipv6:")) address.remove_prefix(5);
  if (address.starts_with("[")) {
    size_t end = address.find(']');
    return end == std::string_view::npos ? address : address.substr(1, end - 1);
  }
  size_t colon = address.rfind(':');
  return colon == std::string_view::npos ? address : address.substr(0, colon);
}

}  // namespace

bool IsLoopbackAddress(std::string_view address) {
  if (address.starts_with("unix:")) return true;
  std::string_view host = HostOf(address);
  return host == "localhost" || host == "::1" || host.starts_with("127.");
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    std::string_view listen_address, const ServerSecurity& security) {
  const bool has_cert = !security.tls_cert_file.empty();
  const bool has_key = !security.tls_key_file.empty();
  if (has_cert != has_key) {
    return absl::InvalidArgumentError("TLS needs both a certificate (--tls-cert) and its key (--tls-key)");
  }
  const bool has_tokens = !security.token.empty() || !security.credentials_file.empty();
  if (!security.token.empty() && !security.credentials_file.empty()) {
    return absl::InvalidArgumentError(
        "give either one shared token (--token-file) or a credentials file (--credentials), not both");
  }
  if (!IsLoopbackAddress(listen_address) && !security.allow_insecure_remote &&
      (!has_cert || !has_tokens)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to listen on ", ToAbsl(listen_address),
        " without TLS and tokens: give --tls-cert, --tls-key and --credentials (or --token-file); "
        "deploy/make-certs.sh makes them. Or listen on 127.0.0.1, or pass --insecure on a trusted network"));
  }
  if (!has_cert) return grpc::InsecureServerCredentials();
  PRUNER_ASSIGN_OR_RETURN(auto cert, ReadWholeFile(security.tls_cert_file, "TLS certificate"));
  PRUNER_ASSIGN_OR_RETURN(auto key, ReadWholeFile(security.tls_key_file, "TLS key"));
  grpc::SslServerCredentialsOptions options;
  options.pem_key_cert_pairs.push_back({key, cert});
  return grpc::SslServerCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const std::string& address,
                                                           const ClientSecurity& security) {
  if (address.empty()) return absl::InvalidArgumentError("no server address given");
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);
  args.SetInt(GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, 64 << 20);
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (security.tls_ca_file.empty()) {
    credentials = grpc::InsecureChannelCredentials();
  } else {
    PRUNER_ASSIGN_OR_RETURN(auto ca, ReadWholeFile(security.tls_ca_file, "TLS CA"));
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = ca;
    credentials = grpc::SslCredentials(options);
    if (!security.tls_server_name.empty()) {
      args.SetSslTargetNameOverride(security.tls_server_name);
    }
  }
  return grpc::CreateCustomChannel(address, credentials, args);
}

void AttachToken(grpc::ClientContext* context, const ClientSecurity& security) {
  if (!security.token.empty()) {
    context->AddMetadata("authorization", absl::StrCat(ToAbsl(kBearer), security.token));
  }
}

absl::StatusOr<std::string> ReadTokenFile(const std::string& path) {
  if (path.empty()) return std::string();
  PRUNER_ASSIGN_OR_RETURN(auto text, ReadWholeFile(path, "token"));
  std::string line = text.substr(0, text.find('\n'));
  absl::StripAsciiWhitespace(&line);
  if (line.empty()) return absl::InvalidArgumentError(absl::StrCat("token file '", path, "' is empty"));
  return line;
}

}  // namespace pruner
