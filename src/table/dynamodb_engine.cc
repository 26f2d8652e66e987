#include "table/dynamodb_engine.h"

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "aws/endpoint.h"
#include "aws/sigv4.h"
#include "stowage/error.h"
#include "table/dynamodb_json.h"
#include "table/expression_renderer.h"
#include "table/validation.h"

namespace stowage::table {

namespace {

using Json = rapidjson::Value;
using dynamodb_json::Allocator;

// CreateTable and DeleteTable return before the table is ACTIVE or gone;
// the Engine contract returns only once it is, so poll DescribeTable.
constexpr auto kFirstPollDelay = std::chrono::milliseconds(50);
constexpr auto kMaxPollDelay = std::chrono::milliseconds(2000);
constexpr auto kTableStateTimeout = std::chrono::seconds(300);

// How much of an unintelligible body an error message quotes.
constexpr std::size_t kExcerptBytes = 200;

std::string excerpt(std::string_view body) {
  std::string out;
  for (unsigned char c : body.substr(0, kExcerptBytes)) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (body.size() > kExcerptBytes) out += fmt::format("… ({} bytes)", body.size());
  return out;
}

Json json_string(std::string_view text, Allocator& allocator) {
  return Json(text.data(), static_cast<rapidjson::SizeType>(text.size()), allocator);
}

// Strict readers of response members: DynamoDB's answer is outside input,
// so a missing or wrong-typed member is a MalformedResponse, never UB.
class ResponseReader {
 public:
  explicit ResponseReader(std::string operation) : operation_(std::move(operation)) {}

  [[noreturn]] void malformed(std::string_view what) const {
    throw Error::malformed_response(fmt::format("DynamoDB {} response: {}", operation_, what));
  }

  const Json* find(const Json& object, const char* name) const {
    if (!object.IsObject()) malformed(fmt::format("expected an object holding \"{}\"", name));
    auto it = object.FindMember(name);
    return it == object.MemberEnd() ? nullptr : &it->value;
  }
  const Json& require(const Json& object, const char* name) const {
    const Json* member = find(object, name);
    if (member == nullptr) malformed(fmt::format("\"{}\" is missing", name));
    return *member;
  }
  std::string string(const Json& object, const char* name) const {
    const Json& member = require(object, name);
    if (!member.IsString()) malformed(fmt::format("\"{}\" is not a string", name));
    return {member.GetString(), member.GetStringLength()};
  }
  const Json& array(const Json& object, const char* name) const {
    const Json& member = require(object, name);
    if (!member.IsArray()) malformed(fmt::format("\"{}\" is not an array", name));
    return member;
  }
  std::optional<Item> optional_item(const Json& object, const char* name) const {
    const Json* member = find(object, name);
    if (member == nullptr) return std::nullopt;
    return item(*member, name);
  }
  // `path` names the item within the response, e.g. "Items[3]".
  Item item(const Json& json, std::string_view path) const {
    try {
      return dynamodb_json::decode_item(json, path);
    } catch (const Error& error) {
      malformed(error.message());
    }
  }

 private:
  std::string operation_;
};

const char* key_type_text(KeyType type) { return type == KeyType::S ? "S" : "N"; }

const char* return_values_text(ReturnValues return_values) {
  switch (return_values) {
    case ReturnValues::None: return "NONE";
    case ReturnValues::AllOld: return "ALL_OLD";
    case ReturnValues::AllNew: return "ALL_NEW";
  }
  throw Error::validation(
      fmt::format("unknown ReturnValues {}", static_cast<int>(return_values)));
}

// Adds the aliases a renderer produced, if any (DynamoDB rejects empty maps).
void add_aliases(Json& object, const ExpressionRenderer& renderer, Allocator& allocator) {
  if (!renderer.names().empty()) {
    Json names(rapidjson::kObjectType);
    for (const auto& [alias, attribute] : renderer.names()) {
      names.AddMember(json_string(alias, allocator), json_string(attribute, allocator), allocator);
    }
    object.AddMember("ExpressionAttributeNames", std::move(names), allocator);
  }
  if (!renderer.values().empty()) {
    Json values(rapidjson::kObjectType);
    for (const auto& [alias, value] : renderer.values()) {
      values.AddMember(json_string(alias, allocator), dynamodb_json::encode(value, allocator),
                       allocator);
    }
    object.AddMember("ExpressionAttributeValues", std::move(values), allocator);
  }
}

Json key_schema_json(const KeySchema& schema, Allocator& allocator) {
  Json elements(rapidjson::kArrayType);
  auto element = [&](const KeyAttribute& attribute, const char* role) {
    Json entry(rapidjson::kObjectType);
    entry.AddMember("AttributeName", json_string(attribute.name, allocator), allocator);
    entry.AddMember("KeyType", rapidjson::StringRef(role), allocator);
    elements.PushBack(std::move(entry), allocator);
  };
  element(schema.hash, "HASH");
  if (schema.range) element(*schema.range, "RANGE");
  return elements;
}

// Fill the members of a write's request object (an empty JSON object),
// shared by the single-item calls and the actions of TransactWriteItems,
// whose members are the same.
void fill_put(Json& body, const PutRequest& request, Allocator& allocator) {
  body.AddMember("TableName", json_string(request.table, allocator), allocator);
  body.AddMember("Item", dynamodb_json::encode(request.item, allocator), allocator);
  if (request.condition) {
    ExpressionRenderer renderer;
    body.AddMember("ConditionExpression",
                   json_string(renderer.condition(*request.condition), allocator), allocator);
    add_aliases(body, renderer, allocator);
  }
}

void fill_delete(Json& body, const DeleteRequest& request, Allocator& allocator) {
  body.AddMember("TableName", json_string(request.table, allocator), allocator);
  body.AddMember("Key", dynamodb_json::encode(request.key, allocator), allocator);
  if (request.condition) {
    ExpressionRenderer renderer;
    body.AddMember("ConditionExpression",
                   json_string(renderer.condition(*request.condition), allocator), allocator);
    add_aliases(body, renderer, allocator);
  }
}

void fill_update(Json& body, const UpdateRequest& request, Allocator& allocator) {
  body.AddMember("TableName", json_string(request.table, allocator), allocator);
  body.AddMember("Key", dynamodb_json::encode(request.key, allocator), allocator);
  ExpressionRenderer renderer;
  body.AddMember("UpdateExpression", json_string(renderer.update(request.update), allocator),
                 allocator);
  if (request.condition) {
    body.AddMember("ConditionExpression",
                   json_string(renderer.condition(*request.condition), allocator), allocator);
  }
  add_aliases(body, renderer, allocator);
}

void fill_condition_check(Json& body, const ConditionCheck& check, Allocator& allocator) {
  body.AddMember("TableName", json_string(check.table, allocator), allocator);
  body.AddMember("Key", dynamodb_json::encode(check.key, allocator), allocator);
  ExpressionRenderer renderer;
  body.AddMember("ConditionExpression", json_string(renderer.condition(check.condition), allocator),
                 allocator);
  add_aliases(body, renderer, allocator);
}

const std::string& action_table(const TransactAction& action) {
  return std::visit([](const auto& request) -> const std::string& { return request.table; },
                    action);
}

bool message_says_item_too_large(std::string_view message) {
  std::string lower(message);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("item size") != std::string::npos &&
         lower.find("exceeded the maximum allowed size") != std::string::npos;
}

// Maps a DynamoDB error (`__type` after its '#') to an Error. `what` names
// the call for the message ("PutItem on table \"t\"").
[[noreturn]] void throw_service_error(const std::string& what, const aws::HttpResponse& response,
                                      const rapidjson::Document* document,
                                      std::size_t action_count) {
  std::string type;
  std::string message;
  if (document != nullptr && document->IsObject()) {
    auto it = document->FindMember("__type");
    if (it != document->MemberEnd() && it->value.IsString()) {
      std::string_view full(it->value.GetString(), it->value.GetStringLength());
      type = std::string(full.substr(full.find('#') + 1));  // npos + 1 == 0: whole string
    }
    for (const char* key : {"message", "Message"}) {
      it = document->FindMember(key);
      if (it != document->MemberEnd() && it->value.IsString()) {
        message.assign(it->value.GetString(), it->value.GetStringLength());
        break;
      }
    }
  }
  const std::string detail = fmt::format("DynamoDB {} failed with {} (HTTP {}): {}", what,
                                         type.empty() ? "no error type" : type, response.status,
                                         message.empty() ? excerpt(response.body) : message);
  if (response.status >= 500 || type == "InternalServerError" || type == "ServiceUnavailable") {
    throw Error(ErrorCode::ServiceUnavailable, detail);
  }
  if (type.empty()) {
    throw Error::malformed_response(
        fmt::format("DynamoDB {} answered HTTP {} without an error type: {}", what,
                    response.status, excerpt(response.body)));
  }
  if (type == "ConditionalCheckFailedException") {
    throw Error(ErrorCode::ConditionalCheckFailed, detail);
  }
  if (type == "TransactionCanceledException") {
    ResponseReader reader(what);
    const Json& list = reader.array(*document, "CancellationReasons");
    if (list.Size() != action_count) {
      reader.malformed(fmt::format("{} cancellation reasons for {} actions", list.Size(),
                                   action_count));
    }
    std::vector<CancellationReason> reasons;
    for (const Json& entry : list.GetArray()) {
      CancellationReason reason{reader.string(entry, "Code"), {}};
      if (reader.find(entry, "Message") != nullptr) {
        reason.message = reader.string(entry, "Message");
      }
      reasons.push_back(std::move(reason));
    }
    throw Error(ErrorCode::TransactionCanceled, detail, std::move(reasons));
  }
  // A single-item write that met an in-flight transaction: reported as a
  // one-action canceled transaction so RetryPolicy treats both alike.
  if (type == "TransactionConflictException") {
    throw Error(ErrorCode::TransactionCanceled, detail,
                {CancellationReason{"TransactionConflict", message}});
  }
  if (type == "ResourceNotFoundException") throw Error(ErrorCode::ResourceNotFound, detail);
  if (type == "ResourceInUseException") throw Error(ErrorCode::ResourceInUse, detail);
  if (type == "IdempotentParameterMismatchException") {
    throw Error(ErrorCode::IdempotentParameterMismatch, detail);
  }
  if (type == "ProvisionedThroughputExceededException" || type == "ThrottlingException" ||
      type == "RequestLimitExceeded" || type == "LimitExceededException") {
    throw Error(ErrorCode::Throttled, detail);
  }
  if (type == "UnrecognizedClientException" || type == "InvalidSignatureException" ||
      type == "AccessDeniedException" || type == "MissingAuthenticationToken" ||
      type == "MissingAuthenticationTokenException" || type == "IncompleteSignatureException" ||
      type == "ExpiredTokenException") {
    throw Error(ErrorCode::AccessDenied,
                detail + "; check the credentials (AWS_ACCESS_KEY_ID, AWS_PROFILE, "
                         "~/.aws/credentials) and the region they are valid in");
  }
  if (type == "ValidationException" && message_says_item_too_large(message)) {
    throw Error(ErrorCode::ItemTooLarge, detail);
  }
  // ValidationException, SerializationException and any other client error
  // the server gave a type for: the request itself was refused.
  throw Error::validation(detail);
}

// A Query or Scan page.
QueryResult decode_page(const rapidjson::Document& response, const std::string& what) {
  ResponseReader reader(what);
  QueryResult result;
  const Json& items = reader.array(response, "Items");
  result.items.reserve(items.Size());
  for (rapidjson::SizeType i = 0; i < items.Size(); ++i) {
    result.items.push_back(reader.item(items[i], fmt::format("Items[{}]", i)));
  }
  result.last_evaluated_key = reader.optional_item(response, "LastEvaluatedKey");
  return result;
}

struct DescribedTable {
  TableDescription description;
  bool usable = false;  // table and every index ACTIVE
};

DescribedTable parse_table(const Json& table, const ResponseReader& reader) {
  std::map<std::string, KeyType, std::less<>> types;
  for (const Json& definition : reader.array(table, "AttributeDefinitions").GetArray()) {
    std::string name = reader.string(definition, "AttributeName");
    std::string type = reader.string(definition, "AttributeType");
    if (type != "S" && type != "N") {
      throw Error::configuration(fmt::format(
          "table \"{}\": key attribute \"{}\" has type {}; Stowage keys must be S or N",
          reader.string(table, "TableName"), name, type));
    }
    types[name] = type == "S" ? KeyType::S : KeyType::N;
  }
  auto parse_key_schema = [&](const Json& elements) {
    KeySchema schema;
    bool has_hash = false;
    for (const Json& element : elements.GetArray()) {
      std::string name = reader.string(element, "AttributeName");
      std::string role = reader.string(element, "KeyType");
      auto type = types.find(name);
      if (type == types.end()) {
        reader.malformed(fmt::format("key attribute \"{}\" has no AttributeDefinition", name));
      }
      if (role == "HASH") {
        schema.hash = {name, type->second};
        has_hash = true;
      } else if (role == "RANGE") {
        schema.range = KeyAttribute{name, type->second};
      } else {
        reader.malformed(fmt::format("unknown KeyType \"{}\"", role));
      }
    }
    if (!has_hash) reader.malformed("a KeySchema without a HASH key");
    return schema;
  };

  DescribedTable result;
  result.description.name = reader.string(table, "TableName");
  result.description.key_schema = parse_key_schema(reader.array(table, "KeySchema"));
  result.usable = reader.string(table, "TableStatus") == "ACTIVE";
  if (reader.find(table, "GlobalSecondaryIndexes") != nullptr) {
    for (const Json& index : reader.array(table, "GlobalSecondaryIndexes").GetArray()) {
      result.description.global_secondary_indexes.push_back(
          {reader.string(index, "IndexName"), parse_key_schema(reader.array(index, "KeySchema"))});
      if (reader.string(index, "IndexStatus") != "ACTIVE") result.usable = false;
    }
  }
  return result;
}

class DynamoDbEngine final : public Engine {
 public:
  DynamoDbEngine(std::string endpoint, std::string region, aws::Credentials credentials,
                 std::shared_ptr<aws::HttpClient> http)
      : url_(endpoint + "/"),
        scope_{std::move(region), "dynamodb"},
        credentials_(std::move(credentials)),
        http_(std::move(http)) {}

  void create_table(const TableDescription& description) override;
  void delete_table(std::string_view table) override;
  TableDescription describe(std::string_view table) override;
  std::optional<Item> get(const GetRequest& request) override;
  std::optional<Item> put(const PutRequest& request) override;
  std::optional<Item> remove(const DeleteRequest& request) override;
  std::optional<Item> update(const UpdateRequest& request) override;
  QueryResult query(const QueryRequest& request) override;
  QueryResult scan(const ScanRequest& request) override;
  void transact_write(const TransactWriteRequest& request) override;

 private:
  using Description = std::shared_ptr<const TableDescription>;

  // One signed exchange. Returns the parsed 200 response or throws the
  // decoded error; forgets the cached descriptions of `tables` when the
  // server says one of them is gone.
  rapidjson::Document call(const char* operation, const std::string& what,
                           const rapidjson::Document& body,
                           const std::vector<std::string>& tables = {},
                           std::size_t action_count = 0);
  DescribedTable fetch(std::string_view table);
  // The cached description, fetched on first use.
  Description table(std::string_view name);
  Description remember(TableDescription description);
  void forget(std::string_view name);
  // Calls `done` (which polls DescribeTable) with growing pauses until it
  // returns true; `state` completes "table did not … in time".
  template <typename Done>
  void wait_for(std::string_view table, const char* state, Done&& done);

  const std::string url_;
  const aws::SigningScope scope_;
  const aws::Credentials credentials_;
  const std::shared_ptr<aws::HttpClient> http_;

  std::shared_mutex cache_mutex_;
  std::map<std::string, Description, std::less<>> cache_;
};

rapidjson::Document DynamoDbEngine::call(const char* operation, const std::string& what,
                                         const rapidjson::Document& body,
                                         const std::vector<std::string>& tables,
                                         std::size_t action_count) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  body.Accept(writer);

  aws::HttpRequest request;
  request.method = "POST";
  request.url = url_;
  request.headers = {{"Content-Type", "application/x-amz-json-1.0"},
                     {"X-Amz-Target", fmt::format("DynamoDB_20120810.{}", operation)}};
  request.body.assign(buffer.GetString(), buffer.GetSize());
  aws::sign_request(request, credentials_, scope_, std::chrono::system_clock::now());

  const aws::HttpResponse response = http_->send(request);
  rapidjson::Document document;
  document.Parse<rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag>(
      response.body.data(), response.body.size());
  const bool parsed = !document.HasParseError() && document.IsObject();
  if (response.status == 200) {
    if (!parsed) {
      throw Error::malformed_response(fmt::format(
          "DynamoDB {} answered HTTP 200 with a body that is not a JSON object: {}", what,
          excerpt(response.body)));
    }
    return document;
  }
  try {
    throw_service_error(what, response, parsed ? &document : nullptr, action_count);
  } catch (const Error& error) {
    if (error.code() == ErrorCode::ResourceNotFound) {
      for (const std::string& table : tables) forget(table);
    }
    throw;
  }
}

DescribedTable DynamoDbEngine::fetch(std::string_view table) {
  rapidjson::Document body(rapidjson::kObjectType);
  body.AddMember("TableName", json_string(table, body.GetAllocator()), body.GetAllocator());
  const std::string what = fmt::format("DescribeTable on table \"{}\"", table);
  rapidjson::Document response = call("DescribeTable", what, body, {std::string(table)});
  ResponseReader reader(what);
  return parse_table(reader.require(response, "Table"), reader);
}

DynamoDbEngine::Description DynamoDbEngine::table(std::string_view name) {
  {
    std::shared_lock lock(cache_mutex_);
    if (auto it = cache_.find(name); it != cache_.end()) return it->second;
  }
  // Two threads may both fetch on a cold cache; both results are the same
  // table, so the duplicate request is harmless and needs no lock held
  // across I/O.
  return remember(fetch(name).description);
}

DynamoDbEngine::Description DynamoDbEngine::remember(TableDescription description) {
  std::string name = description.name;
  auto shared = std::make_shared<const TableDescription>(std::move(description));
  std::unique_lock lock(cache_mutex_);
  cache_.insert_or_assign(std::move(name), shared);
  return shared;
}

void DynamoDbEngine::forget(std::string_view name) {
  std::unique_lock lock(cache_mutex_);
  if (auto it = cache_.find(name); it != cache_.end()) cache_.erase(it);
}

template <typename Done>
void DynamoDbEngine::wait_for(std::string_view table, const char* state, Done&& done) {
  const auto deadline = std::chrono::steady_clock::now() + kTableStateTimeout;
  std::chrono::milliseconds delay = kFirstPollDelay;
  while (!done()) {
    if (std::chrono::steady_clock::now() + delay > deadline) {
      throw Error(ErrorCode::ServiceUnavailable,
                  fmt::format("table \"{}\" did not {} within {} s", table, state,
                              kTableStateTimeout.count()));
    }
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, kMaxPollDelay);
  }
}

void DynamoDbEngine::create_table(const TableDescription& description) {
  rapidjson::Document body(rapidjson::kObjectType);
  Allocator& allocator = body.GetAllocator();

  // Every key attribute of the table and its indexes is defined once, and
  // must have one type everywhere it is a key.
  std::map<std::string, KeyType> definitions;
  auto define = [&](const KeyAttribute& attribute) {
    auto [it, inserted] = definitions.emplace(attribute.name, attribute.type);
    if (!inserted && it->second != attribute.type) {
      throw Error::validation(fmt::format(
          "table \"{}\": attribute \"{}\" is a key of type {} and of type {}", description.name,
          attribute.name, key_type_text(it->second), key_type_text(attribute.type)));
    }
  };
  auto define_schema = [&](const KeySchema& schema) {
    define(schema.hash);
    if (schema.range) define(*schema.range);
  };
  define_schema(description.key_schema);
  for (const GlobalSecondaryIndex& index : description.global_secondary_indexes) {
    define_schema(index.key_schema);
  }

  body.AddMember("TableName", json_string(description.name, allocator), allocator);
  Json attribute_definitions(rapidjson::kArrayType);
  for (const auto& [name, type] : definitions) {
    Json definition(rapidjson::kObjectType);
    definition.AddMember("AttributeName", json_string(name, allocator), allocator);
    definition.AddMember("AttributeType", rapidjson::StringRef(key_type_text(type)), allocator);
    attribute_definitions.PushBack(std::move(definition), allocator);
  }
  body.AddMember("AttributeDefinitions", std::move(attribute_definitions), allocator);
  body.AddMember("KeySchema", key_schema_json(description.key_schema, allocator), allocator);
  body.AddMember("BillingMode", "PAY_PER_REQUEST", allocator);
  if (!description.global_secondary_indexes.empty()) {
    Json indexes(rapidjson::kArrayType);
    for (const GlobalSecondaryIndex& index : description.global_secondary_indexes) {
      Json entry(rapidjson::kObjectType);
      entry.AddMember("IndexName", json_string(index.name, allocator), allocator);
      entry.AddMember("KeySchema", key_schema_json(index.key_schema, allocator), allocator);
      Json projection(rapidjson::kObjectType);
      projection.AddMember("ProjectionType", "ALL", allocator);
      entry.AddMember("Projection", std::move(projection), allocator);
      indexes.PushBack(std::move(entry), allocator);
    }
    body.AddMember("GlobalSecondaryIndexes", std::move(indexes), allocator);
  }

  call("CreateTable", fmt::format("CreateTable on table \"{}\"", description.name), body);
  std::optional<TableDescription> created;
  wait_for(description.name, "become ACTIVE", [&] {
    DescribedTable described = fetch(description.name);
    if (described.usable) created = std::move(described.description);
    return created.has_value();
  });
  remember(std::move(*created));
}

void DynamoDbEngine::delete_table(std::string_view table) {
  rapidjson::Document body(rapidjson::kObjectType);
  body.AddMember("TableName", json_string(table, body.GetAllocator()), body.GetAllocator());
  forget(table);
  call("DeleteTable", fmt::format("DeleteTable on table \"{}\"", table), body);
  wait_for(table, "finish deleting", [&] {
    try {
      fetch(table);
      return false;
    } catch (const Error& error) {
      if (error.code() == ErrorCode::ResourceNotFound) return true;
      throw;
    }
  });
}

TableDescription DynamoDbEngine::describe(std::string_view table) {
  TableDescription description = fetch(table).description;
  remember(description);
  return description;
}

std::optional<Item> DynamoDbEngine::get(const GetRequest& request) {
  validate(*table(request.table), request);
  rapidjson::Document body(rapidjson::kObjectType);
  Allocator& allocator = body.GetAllocator();
  body.AddMember("TableName", json_string(request.table, allocator), allocator);
  body.AddMember("Key", dynamodb_json::encode(request.key, allocator), allocator);
  body.AddMember("ConsistentRead", request.consistent_read, allocator);
  const std::string what = fmt::format("GetItem on table \"{}\"", request.table);
  rapidjson::Document response = call("GetItem", what, body, {request.table});
  return ResponseReader(what).optional_item(response, "Item");
}

std::optional<Item> DynamoDbEngine::put(const PutRequest& request) {
  validate(*table(request.table), request);
  rapidjson::Document body(rapidjson::kObjectType);
  Allocator& allocator = body.GetAllocator();
  fill_put(body, request, allocator);
  body.AddMember("ReturnValues", rapidjson::StringRef(return_values_text(request.return_values)),
                 allocator);
  const std::string what = fmt::format("PutItem on table \"{}\"", request.table);
  rapidjson::Document response = call("PutItem", what, body, {request.table});
  return ResponseReader(what).optional_item(response, "Attributes");
}

std::optional<Item> DynamoDbEngine::remove(const DeleteRequest& request) {
  validate(*table(request.table), request);
  rapidjson::Document body(rapidjson::kObjectType);
  Allocator& allocator = body.GetAllocator();
  fill_delete(body, request, allocator);
  body.AddMember("ReturnValues", rapidjson::StringRef(return_values_text(request.return_values)),
                 allocator);
  const std::string what = fmt::format("DeleteItem on table \"{}\"", request.table);
  rapidjson::Document response = call("DeleteItem", what, body, {request.table});
  return ResponseReader(what).optional_item(response, "Attributes");
}

std::optional<Item> DynamoDbEngine::update(const UpdateRequest& request) {
  validate(*table(request.table), request);
  rapidjson::Document body(rapidjson::kObjectType);
  Allocator& allocator = body.GetAllocator();
  fill_update(body, request, allocator);
  body.AddMember("ReturnValues", rapidjson::StringRef(return_values_text(request.return_values)),
                 allocator);
  const std::string what = fmt::format("UpdateItem on table \"{}\"", request.table);
  rapidjson::Document response = call("UpdateItem", what, body, {request.table});
  return ResponseReader(what).optional_item(response, "Attributes");
}

QueryResult DynamoDbEngine::query(const QueryRequest& request) {
  const Description description = table(request.table);
  validate(*description, request);
  const KeySchema& schema = request.index_name.empty()
                                ? description->key_schema
                                : description->find_index(request.index_name)->key_schema;

  rapidjson::Document body(rapidjson::kObjectType);
  Allocator& allocator = body.GetAllocator();
  body.AddMember("TableName", json_string(request.table, allocator), allocator);
  if (!request.index_name.empty()) {
    body.AddMember("IndexName", json_string(request.index_name, allocator), allocator);
  }
  ExpressionRenderer renderer;
  body.AddMember("KeyConditionExpression",
                 json_string(renderer.key_condition(schema.hash.name, request.hash_value,
                                                    schema.range ? schema.range->name : "",
                                                    request.range_condition),
                             allocator),
                 allocator);
  add_aliases(body, renderer, allocator);
  body.AddMember("ScanIndexForward", request.scan_forward, allocator);
  body.AddMember("ConsistentRead", request.consistent_read, allocator);
  if (request.limit) body.AddMember("Limit", static_cast<uint64_t>(*request.limit), allocator);
  if (request.exclusive_start_key) {
    body.AddMember("ExclusiveStartKey",
                   dynamodb_json::encode(*request.exclusive_start_key, allocator), allocator);
  }
  const std::string what = request.index_name.empty()
                               ? fmt::format("Query on table \"{}\"", request.table)
                               : fmt::format("Query on index \"{}\" of table \"{}\"",
                                             request.index_name, request.table);
  return decode_page(call("Query", what, body, {request.table}), what);
}

QueryResult DynamoDbEngine::scan(const ScanRequest& request) {
  validate(*table(request.table), request);
  rapidjson::Document body(rapidjson::kObjectType);
  Allocator& allocator = body.GetAllocator();
  body.AddMember("TableName", json_string(request.table, allocator), allocator);
  body.AddMember("ConsistentRead", request.consistent_read, allocator);
  if (request.limit) body.AddMember("Limit", static_cast<uint64_t>(*request.limit), allocator);
  if (request.exclusive_start_key) {
    body.AddMember("ExclusiveStartKey",
                   dynamodb_json::encode(*request.exclusive_start_key, allocator), allocator);
  }
  const std::string what = fmt::format("Scan on table \"{}\"", request.table);
  return decode_page(call("Scan", what, body, {request.table}), what);
}

void DynamoDbEngine::transact_write(const TransactWriteRequest& request) {
  // Descriptions stay alive for the whole validation even if another thread
  // forgets them meanwhile.
  std::map<std::string, Description, std::less<>> tables;
  validate(request, [&](std::string_view name) -> const TableDescription& {
    auto it = tables.find(name);
    if (it == tables.end()) it = tables.emplace(std::string(name), table(name)).first;
    return *it->second;
  });

  rapidjson::Document body(rapidjson::kObjectType);
  Allocator& allocator = body.GetAllocator();
  Json items(rapidjson::kArrayType);
  for (const TransactAction& action : request.actions) {
    Json entry(rapidjson::kObjectType);
    Json object(rapidjson::kObjectType);
    const char* kind = std::visit(
        [&](const auto& write) {
          using Action = std::decay_t<decltype(write)>;
          if constexpr (std::is_same_v<Action, PutRequest>) {
            fill_put(object, write, allocator);
            return "Put";
          } else if constexpr (std::is_same_v<Action, UpdateRequest>) {
            fill_update(object, write, allocator);
            return "Update";
          } else if constexpr (std::is_same_v<Action, DeleteRequest>) {
            fill_delete(object, write, allocator);
            return "Delete";
          } else {
            fill_condition_check(object, write, allocator);
            return "ConditionCheck";
          }
        },
        action);
    entry.AddMember(rapidjson::StringRef(kind), std::move(object), allocator);
    items.PushBack(std::move(entry), allocator);
  }
  body.AddMember("TransactItems", std::move(items), allocator);
  if (!request.client_request_token.empty()) {
    body.AddMember("ClientRequestToken", json_string(request.client_request_token, allocator),
                   allocator);
  }

  std::vector<std::string> table_names;
  for (const TransactAction& action : request.actions) table_names.push_back(action_table(action));
  call("TransactWriteItems",
       fmt::format("TransactWriteItems of {} actions", request.actions.size()), body, table_names,
       request.actions.size());
}

}  // namespace

std::unique_ptr<Engine> make_dynamodb_engine(const DynamoDbOptions& options) {
  std::string region = options.region.empty() ? aws::resolve_region() : options.region;
  std::string endpoint = aws::resolve_endpoint("dynamodb", region, options.endpoint);
  aws::Credentials credentials =
      options.credentials ? *options.credentials : aws::resolve_credentials();
  std::shared_ptr<aws::HttpClient> http =
      options.http ? options.http : aws::make_curl_http_client();
  return std::make_unique<DynamoDbEngine>(std::move(endpoint), std::move(region),
                                          std::move(credentials), std::move(http));
}

}  // namespace stowage::table
