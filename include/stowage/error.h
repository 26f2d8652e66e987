// Error: the one exception type Stowage throws.
//
// Every failure carries a code a program can branch on and a message a
// person can act on (it names the table, key, attribute or limit involved).
// Errors are values: copyable, immutable, safe to share between threads.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace stowage {

enum class ErrorCode {
  // Domain errors (DESIGN §7).
  RecordNotFound,
  ForeignKeyViolation,
  TransactionTooLarge,
  IntegrityError,
  InvalidKey,
  ConfigurationError,
  QueryNotSupported,
  QuotaExceeded,
  // Table contract errors, named after DynamoDB's.
  ValidationError,           // a request DynamoDB would reject as malformed
  ItemTooLarge,              // an item over 400 KB (DynamoDB: ValidationException)
  ConditionalCheckFailed,    // put/update/delete condition was false
  TransactionCanceled,       // see Error::cancellation_reasons()
  IdempotentParameterMismatch,
  ResourceNotFound,          // unknown table or index
  ResourceInUse,             // table already exists
  // Transport and service errors.
  Throttled,                 // throughput exceeded / request limit; retryable
  ServiceUnavailable,        // HTTP 5xx; retryable
  NetworkError,              // the request was not sent (connect failed); retryable
  UnknownOutcome,            // sent, but no answer (timeout): it may have applied
  MalformedResponse,         // the server answered something we cannot parse
  AccessDenied,              // bad or missing credentials
  IoError,                   // local file system or SQLite failure
};

std::string_view to_string(ErrorCode code);

// Why one action of a canceled transaction failed. `code` uses DynamoDB's
// names: "None" (this action was fine), "ConditionalCheckFailed",
// "TransactionConflict", "ValidationError", "ItemCollectionSizeLimitExceeded".
struct CancellationReason {
  std::string code;
  std::string message;
};

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string message,
        std::vector<CancellationReason> reasons = {});

  ErrorCode code() const noexcept { return code_; }
  // The message without the "Code: " prefix that what() carries.
  const std::string& message() const noexcept { return message_; }
  // One entry per transaction action, in request order; empty unless
  // code() == TransactionCanceled.
  const std::vector<CancellationReason>& cancellation_reasons() const noexcept {
    return reasons_;
  }

  static Error validation(std::string message);
  static Error invalid_key(std::string message);
  static Error not_found(std::string message);
  static Error configuration(std::string message);
  static Error io(std::string message);
  static Error malformed_response(std::string message);

 private:
  ErrorCode code_;
  std::string message_;
  std::vector<CancellationReason> reasons_;
};

}  // namespace stowage
