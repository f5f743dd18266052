// Cameras: view and projection, and framing a box.
#include <algorithm>
#include <cmath>
#include <limits>

#include <glm/gtc/matrix_transform.hpp>

#include "vatkit/gl/crowd.h"

namespace vatkit::gl {

glm::mat4 Camera::view() const { return glm::lookAt(eye, target, up); }

glm::mat4 Camera::projection(float aspect) const {
  return glm::perspective(glm::radians(fov_y_deg), aspect, near_plane, far_plane);
}

Bounds transform_bounds(const Bounds& b, const glm::mat4& world) {
  Bounds out{glm::vec3(std::numeric_limits<float>::max()), glm::vec3(-std::numeric_limits<float>::max())};
  for (int i = 0; i < 8; ++i) {
    const glm::vec3 corner((i & 1) ? b.max.x : b.min.x, (i & 2) ? b.max.y : b.min.y, (i & 4) ? b.max.z : b.min.z);
    const glm::vec3 p = glm::vec3(world * glm::vec4(corner, 1.0f));
    out.min = glm::min(out.min, p);
    out.max = glm::max(out.max, p);
  }
  return out;
}

Camera camera_for_bounds(const Bounds& bounds, float aspect, float azimuth_deg, float elevation_deg, float fov_y_deg) {
  Camera c;
  const glm::vec3 centre = (bounds.min + bounds.max) * 0.5f;
  const float radius = std::max(glm::length(bounds.max - bounds.min) * 0.5f, 1e-6f);
  const float tan_y = std::tan(glm::radians(fov_y_deg) * 0.5f);
  const float tan_x = tan_y * std::max(aspect, 1e-3f);
  const float az = glm::radians(azimuth_deg), el = glm::radians(elevation_deg);
  const glm::vec3 back(std::sin(az) * std::cos(el), std::sin(el), std::cos(az) * std::cos(el));  // toward the eye
  const glm::vec3 right = glm::normalize(glm::cross(glm::vec3(0.0f, 1.0f, 0.0f), back));
  const glm::vec3 up = glm::cross(back, right);
  // The nearest eye distance at which every corner is inside both fields of view: a corner at
  // (x, y, z) in the camera's axes (z toward the eye) needs d >= z + |x| / tan_x and z + |y| / tan_y.
  float distance = 0.0f, nearest = std::numeric_limits<float>::max(), farthest = 0.0f;
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < 8; ++i) {
      const glm::vec3 corner((i & 1) ? bounds.max.x : bounds.min.x, (i & 2) ? bounds.max.y : bounds.min.y,
                             (i & 4) ? bounds.max.z : bounds.min.z);
      const glm::vec3 d = corner - centre;
      const float x = glm::dot(d, right), y = glm::dot(d, up), z = glm::dot(d, back);
      if (pass == 0) {
        distance = std::max({distance, z + std::abs(x) / tan_x, z + std::abs(y) / tan_y});
      } else {
        nearest = std::min(nearest, distance - z);
        farthest = std::max(farthest, distance - z);
      }
    }
    if (pass == 0) distance = std::max(distance * 1.04f, radius * 1e-3f);  // a small margin
  }
  c.target = centre;
  c.eye = centre + back * distance;
  c.up = glm::vec3(0.0f, 1.0f, 0.0f);
  c.fov_y_deg = fov_y_deg;
  c.near_plane = std::max(nearest * 0.5f, distance * 1e-3f);
  c.far_plane = farthest + radius * 4.0f;  // the ground plane reaches beyond the bounds
  return c;
}

}  // namespace vatkit::gl
