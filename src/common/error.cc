#include "stowage/error.h"

#include <utility>

namespace stowage {

std::string_view to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::RecordNotFound: return "RecordNotFound";
    case ErrorCode::ForeignKeyViolation: return "ForeignKeyViolation";
    case ErrorCode::TransactionTooLarge: return "TransactionTooLarge";
    case ErrorCode::IntegrityError: return "IntegrityError";
    case ErrorCode::InvalidKey: return "InvalidKey";
    case ErrorCode::ConfigurationError: return "ConfigurationError";
    case ErrorCode::QueryNotSupported: return "QueryNotSupported";
    case ErrorCode::QuotaExceeded: return "QuotaExceeded";
    case ErrorCode::ValidationError: return "ValidationError";
    case ErrorCode::ItemTooLarge: return "ItemTooLarge";
    case ErrorCode::ConditionalCheckFailed: return "ConditionalCheckFailed";
    case ErrorCode::TransactionCanceled: return "TransactionCanceled";
    case ErrorCode::IdempotentParameterMismatch: return "IdempotentParameterMismatch";
    case ErrorCode::ResourceNotFound: return "ResourceNotFound";
    case ErrorCode::ResourceInUse: return "ResourceInUse";
    case ErrorCode::Throttled: return "Throttled";
    case ErrorCode::ServiceUnavailable: return "ServiceUnavailable";
    case ErrorCode::NetworkError: return "NetworkError";
    case ErrorCode::UnknownOutcome: return "UnknownOutcome";
    case ErrorCode::MalformedResponse: return "MalformedResponse";
    case ErrorCode::AccessDenied: return "AccessDenied";
    case ErrorCode::IoError: return "IoError";
  }
  return "UnknownError";
}

Error::Error(ErrorCode code, std::string message,
             std::vector<CancellationReason> reasons)
    : std::runtime_error(std::string(to_string(code)) + ": " + message),
      code_(code),
      message_(std::move(message)),
      reasons_(std::move(reasons)) {}

Error Error::validation(std::string message) {
  return Error(ErrorCode::ValidationError, std::move(message));
}
Error Error::invalid_key(std::string message) {
  return Error(ErrorCode::InvalidKey, std::move(message));
}
Error Error::not_found(std::string message) {
  return Error(ErrorCode::RecordNotFound, std::move(message));
}
Error Error::configuration(std::string message) {
  return Error(ErrorCode::ConfigurationError, std::move(message));
}
Error Error::io(std::string message) {
  return Error(ErrorCode::IoError, std::move(message));
}
Error Error::malformed_response(std::string message) {
  return Error(ErrorCode::MalformedResponse, std::move(message));
}

}  // namespace stowage
